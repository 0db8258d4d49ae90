/**
 * Fixtures: named records a sandbox starts from, read from JSON such as
 *
 *   {"tokenizations": [{"name": "ada-card", "email": "ada@example.com", "title": "Card", "description": "On file"}],
 *    "links": [{"name": "inv-42", "email": "ada@example.com", "currency": "EUR", "amount": "25.50",
 *               "title": "Invoice 42", "paid": true}],
 *    "subscriptions": [{"name": "ada-monthly", "package": "monthly", "email": "ada@example.com",
 *                       "status": "cancel"}]}
 *
 * Each entry is the API's request fields plus a `name` of its own, checked by the API's own rules
 * (domain/rules.ts), plus: a link may say `"paid": true`; a subscription names its package by the seeded
 * slug (`"package": "monthly"`) or id (`package` or the API's `package_id`) and may say
 * `"status": "cancel"`. A file with any invalid entry is refused whole, its errors named by entry
 * and field (`links[2].amount`); a valid one is seeded in one transaction. Names are kept (table
 * `seeded`), so that seeding `once` skips the names a business has already.
 *
 * A file may also name the sandbox's account (`"account": {"email": …, "password": …}`, the one a
 * shop signs in with: domain/account.ts). A sandbox started with the file takes it (fixtureAccount);
 * seeding a running sandbox checks it and leaves the account as the sandbox started with it.
 */
import type { Account } from '../../domain/account.js'
import { newLink, newSubscription, newTokenization } from '../../domain/build.js'
import { type Business, businessOf, PACKAGE_SLUGS } from '../../domain/business.js'
import type { PackageRecord } from '../../domain/records.js'
import {
  type Checked,
  checkNewSubscription,
  checkPaymentLink,
  checkSubscriptionChanges,
  checkTokenization,
  type NewSubscriptionInput,
  type PaymentLinkInput,
  type RequestBody,
  type TokenizationInput,
} from '../../domain/rules.js'
import { sandboxNow } from '../../store/clock.js'
import { inStore } from '../../store/local.js'
import type { SandboxStore } from '../../store/store.js'

/** A fixture file: each section a list of entries, each the API's request fields plus `name`. */
export interface Fixtures {
  tokenizations?: FixtureEntry[]
  links?: FixtureEntry[]
  subscriptions?: FixtureEntry[]
  account?: Account
}

export type FixtureEntry = { name: string } & Record<string, unknown>

/** What seeding did: every name of the file with its record's `_id`, in the order of the file. */
export interface Seeded {
  /** `{NAME: ID}`. */
  ids: Record<string, string>
  /** Each entry: its kind, and whether it was skipped (`once`: a name seeded before, left as it was). */
  records: { name: string; kind: FixtureKind; id: string; skipped: boolean }[]
}

export type FixtureKind = 'tokenization' | 'payment_link' | 'subscription'

type Planned =
  | { kind: 'tokenization'; name: string; input: TokenizationInput }
  | { kind: 'payment_link'; name: string; input: PaymentLinkInput; paid: boolean }
  | { kind: 'subscription'; name: string; input: NewSubscriptionInput; pkg: PackageRecord; cancel: boolean }

type FieldErrors = Record<string, string[]>

const SECTIONS = {
  tokenizations: {
    noun: 'tokenization',
    fields: ['email', 'phone_no', 'redirect_url', 'title', 'description'],
  },
  links: {
    noun: 'payment link',
    fields: [
      'email',
      'currency',
      'amount',
      'title',
      'phone_no',
      'description',
      'redirect_url',
      'reference',
      'reference_2',
      'send_email',
      'paid',
    ],
  },
  subscriptions: { noun: 'subscription', fields: ['package', 'package_id', 'email', 'phone_no', 'status'] },
} as const

type Section = keyof typeof SECTIONS

/** Past this many invalid entries, the rest are counted, not listed. */
const MAX_LISTED_ENTRIES = 50
/** The longest name an entry may have. */
const MAX_NAME_LENGTH = 200

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** How deep a fixture file may nest, as a request body may (http/request.ts). */
export const MAX_FIXTURE_DEPTH = 64

/** Whether `value` nests arrays and objects deeper than `max`; walked without recursion, so any depth is safe. */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number]
    if (typeof item !== 'object' || item === null) continue
    if (depth > max) return true
    for (const child of Object.values(item)) stack.push([child, depth + 1])
  }
  return false
}

/**
 * What is wrong with a fixture file as a whole, before any entry is read: it is no JSON object,
 * or it nests deeper than MAX_FIXTURE_DEPTH (a 200,000-deep file would exhaust the stack of
 * whatever walks it). Undefined when neither. The CLI asks this before it sends a file anywhere.
 */
export function fixtureShapeErrors(value: unknown): FieldErrors | undefined {
  if (!isObject(value)) {
    return {
      fixtures: [
        'A fixture file is a JSON object: {"tokenizations": [...], "links": [...], "subscriptions": [...]}.',
      ],
    }
  }
  if (deeperThan(value, MAX_FIXTURE_DEPTH)) {
    return {
      fixtures: [`A fixture file is nested at most ${MAX_FIXTURE_DEPTH} levels deep: this one is deeper.`],
    }
  }
  return undefined
}

/**
 * The fixtures checked against the rules of the API (for a business with `packages`): the records
 * to make, in the order of the file (tokenizations, links, subscriptions), or every error, keyed
 * by section, entry and field (`links[2].amount`; `links[2]` for an entry that is no object).
 * Error maps have no prototype: a section or field named `__proto__` is one more name.
 */
export function checkFixtures(value: unknown, packages: readonly PackageRecord[]): Checked<Planned[]> {
  const shape = fixtureShapeErrors(value)
  if (shape || !isObject(value)) return { ok: false, errors: shape ?? {} }
  const errors: FieldErrors = Object.create(null)
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(SECTIONS, key) && key !== 'account') {
      errors[key] = [
        `The ${key} section is unknown: a fixture file has tokenizations, links, subscriptions and account.`,
      ]
    }
  }
  Object.assign(errors, accountErrors(value.account))
  const planned: Planned[] = []
  const names = new Map<string, string>()
  let invalid = 0
  for (const section of Object.keys(SECTIONS) as Section[]) {
    const entries = value[section]
    if (entries === undefined) continue
    if (!Array.isArray(entries)) {
      errors[section] = [`The ${section} section must be a list of entries.`]
      continue
    }
    entries.forEach((entry: unknown, index: number) => {
      const where = `${section}[${index}]`
      const checked = checkEntry(section, entry, packages)
      const entryErrors: FieldErrors = checked.ok ? {} : checked.errors
      const name = isObject(entry) ? entry.name : undefined
      if (typeof name === 'string' && names.has(name) && !entryErrors.name) {
        entryErrors.name = [`The name "${name}" is taken by ${names.get(name)}: names are unique in a file.`]
      }
      if (typeof name === 'string' && !names.has(name)) names.set(name, where)
      if (Object.keys(entryErrors).length === 0 && checked.ok) {
        planned.push(checked.value)
        return
      }
      invalid++
      if (invalid > MAX_LISTED_ENTRIES) return
      for (const [field, messages] of Object.entries(entryErrors)) {
        errors[field === '' ? where : `${where}.${field}`] = messages
      }
    })
  }
  if (invalid > MAX_LISTED_ENTRIES) {
    errors.fixtures = [`${invalid - MAX_LISTED_ENTRIES} more invalid entries are not listed.`]
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: planned }
}

/** What is wrong with a fixture file's `account` section, keyed `account.email`, `account.password`. */
function accountErrors(account: unknown): FieldErrors {
  if (account === undefined) return {}
  if (!isObject(account))
    return { account: ['The account section must be an object: {"email", "password"}.'] }
  const errors: FieldErrors = {}
  const { email, password } = account
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email))
    errors['account.email'] = ['The email must be a valid email address.']
  if (typeof password !== 'string' || password === '')
    errors['account.password'] = ['The password field is required.']
  return errors
}

/** The account a fixture file names, when it names one (checked by checkFixtures). */
export function fixtureAccount(value: unknown): Account | undefined {
  if (!isObject(value) || !isObject(value.account)) return undefined
  const { email, password } = value.account
  return typeof email === 'string' && typeof password === 'string' ? { email, password } : undefined
}

/** One entry checked; errors keyed by field ('' for the entry itself). */
function checkEntry(section: Section, entry: unknown, packages: readonly PackageRecord[]): Checked<Planned> {
  const { noun, fields } = SECTIONS[section]
  if (!isObject(entry))
    return { ok: false, errors: { '': [`Each entry must be an object: a ${noun}'s fields and a name.`] } }
  const errors: FieldErrors = Object.create(null)
  const fail = (field: string, message: string) => {
    errors[field] ??= []
    errors[field].push(message)
  }
  const { name } = entry
  if (name === undefined || name === null || (typeof name === 'string' && name.trim() === '')) {
    fail('name', 'The name field is required.')
  } else if (typeof name !== 'string') {
    fail('name', 'The name must be a string.')
  } else if (name.length > MAX_NAME_LENGTH || /[\p{Cc}\p{Cf}]/u.test(name)) {
    fail('name', `The name must be at most ${MAX_NAME_LENGTH} characters, none of them a control character.`)
  }
  const body: RequestBody = {}
  for (const [field, fieldValue] of Object.entries(entry)) {
    if (field === 'name') continue
    if (!(fields as readonly string[]).includes(field)) {
      fail(field, `The ${field} field is not a field of a ${noun} (${fields.join(', ')}, and name).`)
    } else body[field] = fieldValue
  }
  const merge = (checked: Checked<unknown>) => {
    if (!checked.ok)
      for (const [field, messages] of Object.entries(checked.errors)) for (const m of messages) fail(field, m)
  }
  const named = name as string
  if (section === 'tokenizations') {
    const checked = checkTokenization(body)
    merge(checked)
    if (Object.keys(errors).length > 0 || !checked.ok) return { ok: false, errors }
    return { ok: true, value: { kind: 'tokenization', name: named, input: checked.value } }
  }
  if (section === 'links') {
    const checked = checkPaymentLink(body)
    merge(checked)
    if (body.paid !== undefined && typeof body.paid !== 'boolean')
      fail('paid', 'The paid field must be true or false.')
    if (Object.keys(errors).length > 0 || !checked.ok) return { ok: false, errors }
    return {
      ok: true,
      value: { kind: 'payment_link', name: named, input: checked.value, paid: body.paid === true },
    }
  }
  // Subscriptions: `package` (a slug or an id) or `package_id`, then the API's rules.
  const { package: pkgName, package_id: pkgId, status, ...rest } = body
  let packageId = pkgId
  if (pkgName !== undefined && pkgId !== undefined) {
    fail('package', 'Give package (a slug or an id) or package_id, not both.')
  } else if (pkgName !== undefined) {
    const index = typeof pkgName === 'string' ? PACKAGE_SLUGS.indexOf(pkgName) : -1
    packageId = index >= 0 ? packages[index]?._id : pkgName
    if (typeof packageId !== 'string' || !packages.some((p) => p._id === packageId)) {
      fail(
        'package',
        `The selected package is invalid: give a package's slug (${PACKAGE_SLUGS.join(', ')}) or _id.`,
      )
    }
  }
  const ids = new Set(packages.map((p) => p._id))
  const checked = checkNewSubscription(
    { ...rest, ...(packageId === undefined ? {} : { package_id: packageId }) },
    ids,
  )
  if (!errors.package) merge(checked)
  else if (!checked.ok)
    merge({
      ok: false,
      errors: Object.fromEntries(Object.entries(checked.errors).filter(([f]) => f !== 'package_id')),
    })
  merge(checkSubscriptionChanges(status === undefined ? {} : { status }))
  if (Object.keys(errors).length > 0 || !checked.ok) return { ok: false, errors }
  const pkg = packages.find((p) => p._id === checked.value.package_id) as PackageRecord
  return {
    ok: true,
    value: { kind: 'subscription', name: named, input: checked.value, pkg, cancel: status === 'cancel' },
  }
}

const SEEDED = {
  find: 'SELECT id, kind FROM seeded WHERE business = (SELECT id FROM businesses WHERE key_hash = ?) AND name = ?',
  keep: `INSERT INTO seeded (business, name, kind, id) VALUES ((SELECT id FROM businesses WHERE key_hash = ?), ?, ?, ?)
    ON CONFLICT (business, name) DO UPDATE SET kind = excluded.kind, id = excluded.id`,
  business: 'INSERT INTO businesses (key_hash, business_id) VALUES (?, ?) ON CONFLICT (key_hash) DO NOTHING',
} as const

/**
 * Seeds `fixtures` into the records of `business`, in one transaction: all of it, or nothing when
 * an entry is invalid (the errors, as checkFixtures gives them). `once`: a name the business has
 * seeded before is skipped (its `_id` is the one it was seeded as). `origin`: where the payment and
 * activation pages of the new records are served.
 */
export function seedFixtures(
  store: SandboxStore,
  business: Business,
  fixtures: unknown,
  options: { once?: boolean; origin: string },
): Checked<Seeded> {
  const checked = checkFixtures(fixtures, business.packages)
  if (!checked.ok) return checked
  const records: Seeded['records'] = []
  store.write(() => {
    const at = sandboxNow(store)
    store.statement(SEEDED.business, 'run', business.keyHash, business.businessId)
    for (const entry of checked.value) {
      const found = options.once
        ? (store.statement(SEEDED.find, 'get', business.keyHash, entry.name) as
            | { id: string; kind: FixtureKind }
            | undefined)
        : undefined
      if (found) {
        records.push({ name: entry.name, kind: found.kind, id: found.id, skipped: true })
        continue
      }
      const id = make(store, business, entry, options.origin, at)
      store.statement(SEEDED.keep, 'run', business.keyHash, entry.name, entry.kind, id)
      records.push({ name: entry.name, kind: entry.kind, id, skipped: false })
    }
  })
  return { ok: true, value: { ids: Object.fromEntries(records.map((r) => [r.name, r.id])), records } }
}

/** Makes the record of one entry, as the API would, and returns its `_id`. */
function make(store: SandboxStore, business: Business, entry: Planned, origin: string, at: number): string {
  switch (entry.kind) {
    case 'tokenization': {
      const record = newTokenization(entry.input, origin, at)
      store.insertTokenization(business, record)
      return record._id
    }
    case 'payment_link': {
      const record = newLink(business.businessId, entry.input, origin, at)
      store.insert('payment_links', business, entry.paid ? { ...record, paid: true } : record)
      return record._id
    }
    case 'subscription': {
      const record = newSubscription(entry.input, entry.pkg, at)
      store.insert('subscriptions', business, entry.cancel ? { ...record, status: 'cancel' } : record)
      return record._id
    }
  }
}

/** seedFixtures on the store in `dir`, for the business of `key` (`pay sandbox seed` with no server). */
export function seedIn(
  dir: string,
  key: string,
  fixtures: unknown,
  options: { once?: boolean; origin: string },
): Checked<Seeded> {
  return inStore(dir, (store) => seedFixtures(store, businessOf(key), fixtures, options))
}

/** Text that is not JSON, as a fixture file: the parser's message. */
export class FixtureSyntaxError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FixtureSyntaxError'
  }
}

/** A fixture file's text as JSON (a leading byte-order mark allowed); FixtureSyntaxError when it is not. */
export function parseFixtures(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new FixtureSyntaxError(`It is not JSON: ${(error as Error).message}.`)
  }
}

/** Fixtures refused by the rules: nothing of them was kept. `errors` as checkFixtures gives them. */
export class FixturesInvalid extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super(`The fixtures are invalid: nothing was seeded (${Object.keys(errors).slice(0, 3).join(', ')}).`)
    this.name = 'FixturesInvalid'
  }
}
