import { isIPv4, isIPv6 } from 'node:net'
import { domainToASCII } from 'node:url'
import fc from 'fast-check'
import { expect } from 'vitest'
import { currencyDigits, decimalText } from '../../src/shared/money.js'
import type { RecordedRequest } from './fake-server.js'
import { MANIFEST } from './manifest.js'

/**
 * A model of what the create/update commands must do with any flag values: the exact request
 * (method, path, body), or which clear error. The rules are written out here, from the
 * contract (docs/design.md and the commands' help), not imported from src: a change of behaviour
 * has to change both. Two exceptions, each tested on its own: the currencies' decimals
 * (render/format.ts currencyDigits) and numbers as plain decimals (values.ts decimalText).
 */

const AMOUNT = /^\d+(\.\d+)?$/
const CURRENCY = /^[A-Za-z]{3}$/

/**
 * The service's e-mail rule (docs/choices.md: Laravel's `email`, RFC validation), as the contract
 * states it: a dot-atom or quoted local part; labels of letters, digits and hyphens (and letters
 * beyond ASCII), none empty, none ending in a hyphen, the domain not starting with one; a label at
 * most 63 characters, the domain at most 253 bytes; or an address literal.
 */
function isEmail(value: string): boolean {
  const text = '[^\\x00-\\x7F\\p{S}\\p{C}]'
  const atom = `(?:[A-Za-z0-9!#$%&'*+/=?^_\`{|}~-]|${text})+`
  const quoted = `"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|${text}|\\\\[\\x20-\\x7E])*"`
  const match = new RegExp(`^(${atom}(?:\\.${atom})*|${quoted})@(.*)$`, 'su').exec(value)
  if (!match) return false
  const domain = match[2]
  const literal = /^\[(.*)\]$/s.exec(domain)?.[1]
  if (literal !== undefined) return /^IPv6:/i.test(literal) ? isIPv6(literal.slice(5)) : isIPv4(literal)
  if (domain.startsWith('-') || Buffer.byteLength(domain) > 253) return false
  const label = new RegExp(`^(?:[A-Za-z0-9-]|${text})*(?:[A-Za-z0-9]|${text})$`, 'u')
  return domain
    .split('.')
    .every((part) => label.test(part) && (/^[ -~]+$/.test(part) ? part : domainToASCII(part)).length <= 63)
}

/** What pay says of an amount that is a near miss of a decimal (the same words as the service). */
function amountNearMiss(value: string): string | undefined {
  if (value.trim() !== value && value.trim() !== '') return 'must not begin or end with a space.'
  if (/^-[0-9.]/.test(value)) return 'must be greater than 0.'
  if (/^\+[0-9.]/.test(value)) return 'must be written without a sign.'
  if (/^0[xob][0-9a-f]/i.test(value))
    return 'must be written in decimal digits, without a 0x, 0o or 0b prefix.'
  if (/^[0-9.]+e[+-]?[0-9]+$/i.test(value))
    return 'must be written out in digits, not with an exponent like 1e3.'
  if (/^[0-9.,]+$/.test(value) && /[0-9]/.test(value)) {
    if (value.includes(','))
      return 'must use a point for its decimals and no thousands separator, like 1000.50.'
    if (value.split('.').length > 2) return 'must have one decimal point at most.'
    if (value.endsWith('.')) return 'must have digits after its decimal point, like 5.00.'
    return 'must have a digit before its decimal point, like 0.50.'
  }
  return undefined
}

/** The fields the service's documentation bounds to 50 characters, counted in code points. */
const BOUNDED = new Set(['title', 'reference', 'reference_2'])

const MESSAGES = {
  email: 'The email must be a valid email address.',
  amount: (value: string) =>
    `The amount ${amountNearMiss(value) ?? 'must be a decimal number written like 25.50 (digits and one point).'}`,
  amountZero: 'The amount must be greater than 0.',
  tooLong: (field: string) => `The ${field} may not be greater than 50 characters.`,
  currency: 'The currency must be a 3-letter currency code, like EUR.',
  url: (field: string) =>
    `The ${field} must be an absolute http:// or https:// URL, like https://shop.example/thanks.`,
  id: (field: string) => `The ${field} must be an id: letters, digits, - and _ only.`,
  status:
    'The status an update can set is cancel (pay shows it as cancelled; cancelled and canceled are taken too).',
}

/** An absolute http(s) URL with a host: what --redirect-url takes (pay's own rule). */
function isWebAddress(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (!/^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i.test(value)) return false
  try {
    return new URL(value).hostname !== ''
  } catch {
    return false
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** `subs update --status`: the words pay prints, any case, are the service's `cancel`. */
function serviceStatus(value: string): string {
  const word = value.trim().toLowerCase()
  if (word === 'cancelled' || word === 'canceled' || word === 'cancel') return 'cancel'
  return word === 'created' ? 'created' : value
}

type Kind = 'text' | 'email' | 'amount' | 'currency' | 'bool' | 'url' | 'id' | 'status'

interface FlagSpec {
  flag: string
  field: string
  kind: Kind
}

const text = (flag: string, field = flag.replace(/-/g, '_')): FlagSpec => ({ flag, field, kind: 'text' })

export interface CommandSpec {
  /** `links create` */
  name: string
  argv: string[]
  /** Takes an id argument (update commands). */
  takesId: boolean
  flags: FlagSpec[]
  /** Fields that must be given (create commands), in the order pay names them. */
  required: string[]
  /** Words every run adds after the flags (`--yes`: a change that asks is agreed to). */
  agreed?: string[]
}

const LINK_FLAGS: FlagSpec[] = [
  { flag: 'email', field: 'email', kind: 'email' },
  { flag: 'currency', field: 'currency', kind: 'currency' },
  { flag: 'amount', field: 'amount', kind: 'amount' },
  text('title'),
  text('phone', 'phone_no'),
  text('description'),
  { flag: 'redirect-url', field: 'redirect_url', kind: 'url' },
  text('reference'),
  text('reference-2'),
  { flag: 'send-email', field: 'send_email', kind: 'bool' },
]

/**
 * Each command that sends a body of its flags to the service: the endpoint declarations
 * (src/shared/endpoints.ts) say which, and test/unit/commands/properties.test.ts fails for one
 * they declare and this list lacks, or for fields that differ from the declared body's.
 */
export const COMMANDS: CommandSpec[] = [
  {
    name: 'token create',
    argv: ['token', 'create'],
    takesId: false,
    flags: [
      { flag: 'email', field: 'email', kind: 'email' },
      text('title'),
      text('description'),
      text('phone', 'phone_no'),
      { flag: 'redirect-url', field: 'redirect_url', kind: 'url' },
    ],
    required: ['email', 'title', 'description'],
  },
  {
    name: 'links create',
    argv: ['links', 'create'],
    takesId: false,
    flags: LINK_FLAGS,
    required: ['email', 'currency', 'amount', 'title'],
  },
  { name: 'links update', argv: ['links', 'update'], takesId: true, flags: LINK_FLAGS, required: [] },
  {
    name: 'subs create',
    argv: ['subs', 'create'],
    takesId: false,
    flags: [
      { flag: 'package-id', field: 'package_id', kind: 'id' },
      { flag: 'email', field: 'email', kind: 'email' },
      text('phone', 'phone_no'),
    ],
    required: ['package_id', 'email'],
  },
  {
    name: 'subs update',
    argv: ['subs', 'update'],
    takesId: true,
    flags: [
      { flag: 'email', field: 'email', kind: 'email' },
      text('phone', 'phone_no'),
      { flag: 'status', field: 'status', kind: 'status' },
    ],
    required: [],
    // --status cancel cancels, and asks as `subs cancel` does: agreed to, the plan is said.
    agreed: ['--yes'],
  },
]

/**
 * Every flag of a command (its own and the global ones), as its help publishes them: the built
 * manifest, so that a flag added later (`-y` on links create) is known here without a list to keep.
 */
function flagWords(spec: CommandSpec): { long: string[]; chars: string[] } {
  const flags = Object.values(MANIFEST.commands[spec.argv.join(':')].flags)
  return {
    long: flags.flatMap(({ name, allowNo }) => (allowNo ? [name, `no-${name}`] : [name])),
    chars: flags.flatMap(({ char }) => (char ? [char] : [])),
  }
}

export interface FlagInput {
  /** The id argument of an update command. */
  id: string
  values: Record<string, string | boolean | undefined>
  /** Each flag as `--flag value` or `--flag=value`. */
  forms: Record<string, 'separate' | 'equals'>
}

export const argvFor = (spec: CommandSpec, input: FlagInput): string[] => {
  const argv = [...spec.argv, ...(spec.takesId ? [input.id] : [])]
  for (const { flag, kind } of spec.flags) {
    const value = input.values[flag]
    if (value === undefined) continue
    if (kind === 'bool') argv.push(value ? `--${flag}` : `--no-${flag}`)
    else if (input.forms[flag] === 'equals') argv.push(`--${flag}=${value}`)
    else argv.push(`--${flag}`, value as string)
  }
  return [...argv, ...(spec.agreed ?? [])]
}

/**
 * oclif takes a value that is itself one of the command's flags (`--title --json`, and even
 * `--title=-q`) for a missing value: a usage error, whatever form it was given in.
 */
function looksLikeFlag(spec: CommandSpec, value: string): boolean {
  const { long, chars } = flagWords(spec)
  return long.some((name) => value === `--${name}`) || chars.some((c) => value.startsWith(`-${c}`))
}

export type Expected =
  | { exit: 2; stderr: RegExp | string }
  | { exit: 3; stderr: string; requests?: { method: string; path: string; body: undefined }[] }
  | {
      exit: 0
      requests: { method: string; path: string; body: Record<string, unknown> | undefined }[]
      /** What stderr says (nothing when left out). */
      stderr?: RegExp
    }

/** What pay must do; `current` is the record the server holds (links update fetches it first). */
export function expected(spec: CommandSpec, input: FlagInput, current: Record<string, unknown>): Expected {
  const given = spec.flags.filter(({ flag }) => input.values[flag] !== undefined)
  if (given.some(({ flag, kind }) => kind !== 'bool' && looksLikeFlag(spec, input.values[flag] as string))) {
    // `--title --json`: --json is in the arguments, so the error is JSON too.
    return argvFor(spec, input).includes('--json')
      ? {
          exit: 2,
          stderr:
            /^\{"error":\{"status":null,"kind":"usage","exit_code":2,"message":"Flag --[a-z0-9-]+ expects a value","hint":"See `pay [a-z ]+ --help`\."\}\}\n$/,
        }
      : { exit: 2, stderr: /^Error: Flag --[a-z0-9-]+ expects a value\nSee `pay [a-z ]+ --help`\.\n$/ }
  }
  // The id as people paste it: trimmed, out of quotes or angle brackets, out of a payment URL, hex
  // lower-cased; what is left that no id holds is a usage error, before anything is sent.
  const id = spec.takesId ? pastedId(input.id) : ''
  const notAnId = spec.takesId ? idRefusal(id) : undefined
  if (notAnId) return { exit: 2, stderr: `Error: ${JSON.stringify(input.id)} is not an id: ${notAnId}.\n` }
  const body: Record<string, unknown> = {}
  for (const { flag, field, kind } of given) {
    const value = input.values[flag]
    // Sent as the service spells them: currencies in capitals, `cancelled` as `cancel`.
    if (kind === 'currency') body[field] = (value as string).toUpperCase()
    else if (kind === 'status') body[field] = serviceStatus(value as string)
    else body[field] = value
  }
  const idPath = spec.takesId ? `/${encodeURIComponent(id)}` : ''
  if (spec.takesId && given.length === 0) return { exit: 2, stderr: /^Error: Nothing to change\.\n/ }

  const errors: [string, string][] = []
  for (const { flag, field, kind } of given) {
    const value = input.values[flag] as string
    if (kind === 'email' && !isEmail(value)) errors.push([flag, MESSAGES.email])
    if (kind === 'text' && BOUNDED.has(field) && [...value].length > 50)
      errors.push([flag, MESSAGES.tooLong(field)])
    if (kind === 'currency' && !CURRENCY.test(value)) errors.push([flag, MESSAGES.currency])
    if (kind === 'amount' && !AMOUNT.test(value)) errors.push([flag, MESSAGES.amount(value)])
    else if (kind === 'amount' && !/[1-9]/.test(value)) errors.push([flag, MESSAGES.amountZero])
    else if (kind === 'amount' && CURRENCY.test((input.values.currency as string | undefined) ?? '')) {
      // Amount and currency both given and well-formed: checked together, before anything is sent.
      const tooPrecise = amountDigitsProblem(body)
      if (tooPrecise) errors.push([flag, tooPrecise])
    }
    if (kind === 'url' && !isWebAddress(value)) errors.push([flag, MESSAGES.url(field)])
    if (kind === 'id' && !/^[A-Za-z0-9_-]{1,100}$/.test(value)) errors.push([flag, MESSAGES.id(field)])
    if (kind === 'status' && body.status !== 'cancel') errors.push([flag, MESSAGES.status])
  }
  const invalid = (problems: [string, string][]) => {
    const width = Math.max(...problems.map(([flag]) => flag.length + 2))
    const lines = problems.map(([flag, message]) => `  ${`--${flag}`.padEnd(width)}  ${message}`)
    return ['Error: The given data was invalid.', ...lines, ''].join('\n')
  }
  if (errors.length > 0) return { exit: 3, stderr: invalid(errors) }
  const missing = spec.required.filter((field) => body[field] === undefined)
  if (missing.length > 0) {
    const flags = missing.map((field) => `--${spec.flags.find((f) => f.field === field)!.flag}`)
    return {
      exit: 2,
      stderr: `Error: Missing required flag${flags.length === 1 ? '' : 's'}: ${flags.join(', ')}\nPass them as flags (neither stdin nor stdout is a terminal, so pay does not ask).\n`,
    }
  }
  switch (spec.name) {
    case 'token create':
      return { exit: 0, requests: [{ method: 'POST', path: '/tokenizations/create-token', body }] }
    case 'links create':
      return { exit: 0, requests: [{ method: 'POST', path: '/payment-links', body }] }
    case 'subs create':
      return { exit: 0, requests: [{ method: 'POST', path: '/subscriptions', body }] }
    case 'subs update': {
      const requests = [{ method: 'PUT', path: `/subscriptions${idPath}`, body }]
      if (body.status !== 'cancel') return { exit: 0, requests }
      // The plan of a cancel, agreed to with --yes: the subscription is not read to describe it.
      const plan = `About to cancel 1 subscription:\n  profile:  \\(environment\\)\n  base URL: http://127\\.0\\.0\\.1:\\d+\n  ids:      ${escapeRegExp(id)}\n`
      return { exit: 0, requests, stderr: new RegExp(`^${plan}$`) }
    }
    default: {
      // links update: the current link's fields, the given ones on top (PUT replaces the link).
      const asText = (value: unknown) =>
        value === undefined || value === null
          ? undefined
          : typeof value === 'string'
            ? value
            : typeof value === 'number'
              ? decimalText(value)
              : JSON.stringify(value)
      const merged: Record<string, unknown> = {}
      for (const field of ['email', 'currency', 'amount', 'title']) {
        merged[field] = body[field] ?? asText(current[field]) ?? ''
      }
      for (const field of ['phone_no', 'description', 'redirect_url', 'reference', 'reference_2']) {
        const value = body[field] ?? asText(current[field])
        if (value !== undefined) merged[field] = value
      }
      if (body.send_email !== undefined) merged.send_email = body.send_email
      // One of amount and currency given: checked with the other as the link has it.
      const tooPrecise =
        body.amount !== undefined || body.currency !== undefined ? amountDigitsProblem(merged) : undefined
      if (tooPrecise) {
        // A new currency the link's amount does not fit: said under --currency, with the way out.
        const currencyOnly = body.amount === undefined
        const code = String(merged.currency)
        const allowed = tooPrecise.replace(/^The amount must have (.*) for [A-Z]{3}\.$/, '$1')
        const message = `The link's amount, ${String(merged.amount)}, has decimals ${code} does not allow (${allowed}): give a new --amount with --currency ${code}.`
        return {
          exit: 3,
          stderr: invalid([currencyOnly ? ['currency', message] : ['amount', tooPrecise]]),
          requests: [{ method: 'GET', path: `/payment-links${idPath}`, body: undefined }],
        }
      }
      return {
        exit: 0,
        requests: [
          { method: 'GET', path: `/payment-links${idPath}`, body: undefined },
          { method: 'PUT', path: `/payment-links${idPath}`, body: merged },
        ],
      }
    }
  }
}

/** The pairs a pasted id may come in: quotes (straight, curly, guillemets), backquotes, angle brackets. */
const PAIRS = ['""', "''", '``', '<>', '\u201c\u201d', '\u2018\u2019', '\u00ab\u00bb']

/** The id pay reads from what was typed (docs/bulk.md, "Cancelling and deleting by id": pasted ids). */
function pastedId(typed: string): string {
  const unwrap = (text: string) => {
    let inner = text.trim()
    while (inner.length >= 2 && PAIRS.includes(inner[0] + inner[inner.length - 1]))
      inner = inner.slice(1, -1).trim()
    return inner
  }
  let id = unwrap(typed)
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(id)) {
    try {
      const inUrl = new URL(id)
      const fromQuery = /^https?:$/.test(inUrl.protocol) ? inUrl.searchParams.get('id') : null
      if (fromQuery !== null) id = unwrap(fromQuery)
    } catch {}
  }
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : id
}

/** Why the text read as an id is none: the reasons docs/bulk.md lists, in its order. */
function idRefusal(id: string): string | undefined {
  if (id === '') return 'empty'
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(id)) return 'a URL without an id (a payment_url carries ?id=…)'
  if (id === '.' || id === '..') return 'only dots'
  if (/\s/.test(id)) return 'it contains a space'
  if (/["'`\u2018\u2019\u201c\u201d\u00ab\u00bb]/.test(id)) return 'it contains a quote'
  if (/[<>]/.test(id)) return 'it contains an angle bracket'
  if (id.includes(',')) return 'it contains a comma (one id per line)'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(id)) return 'it contains a control character'
  return undefined
}

/** Checks one run against the model: exit code, stderr, and exactly the requests sent. */
export function expectModel(
  want: Expected,
  result: { code: number | null; stdout: string; stderr: string },
  requests: RecordedRequest[],
): void {
  const sent = requests.map((r) => ({
    method: r.method,
    path: r.path,
    body: r.body === '' ? undefined : JSON.parse(r.body),
  }))
  expect(result.stderr).not.toMatch(/^\s+at /m)
  if (want.exit === 0) {
    expect({ code: result.code, stderr: want.stderr ? '' : result.stderr, sent }).toEqual({
      code: 0,
      stderr: '',
      sent: want.requests,
    })
    if (want.stderr) expect(result.stderr).toMatch(want.stderr)
    return
  }
  expect({ code: result.code, stdout: result.stdout, sent }).toEqual({
    code: want.exit,
    stdout: '',
    sent: want.exit === 3 ? (want.requests ?? []) : [],
  })
  if (typeof want.stderr === 'string') expect(result.stderr).toBe(want.stderr)
  else expect(result.stderr).toMatch(want.stderr)
}

/** Values that break naive parsing: dashes, flags, controls, spaces, near-valid amounts. */
const TRICKY = [
  '',
  ' ',
  '-',
  '--',
  '-x',
  '--x',
  '--json',
  '--json=1',
  '-q',
  '-y',
  '-p',
  '--title',
  '--no-send-email',
  'a=b',
  '=',
  '\n',
  '\t',
  '\u001b[31m',
  'é',
  '😀',
  '0',
  '0.00',
  '00.10',
  '1e3',
  ' 1',
  '1 ',
  '1.',
  '.5',
  '1,5',
  '١٢',
  '-1',
  'a@b.c',
  'a@b',
  '@b.co',
  'a b@c.de',
  'EUR',
  'eur',
  'EU',
  'EURO',
  'ÉUR',
  'a..b@c.co',
  '"a..b"@c.co',
  'a@localhost',
  '+5',
  '0x10',
  '5.',
  '😀'.repeat(50),
  `${'😀'.repeat(50)}x`,
  'r'.repeat(51),
]

export interface ValueOptions {
  /** Only values a process argument can carry (no NUL, no lone surrogate). */
  argvSafe?: boolean
}

export function valueArbitrary(kind: Kind, options: ValueOptions = {}): fc.Arbitrary<string> {
  const any = options.argvSafe
    ? fc.string({ unit: 'grapheme', maxLength: 16 }).filter((s) => !s.includes('\u0000'))
    : fc.string({ unit: 'binary', maxLength: 16 })
  const base = fc.oneof(any, fc.constantFrom(...TRICKY), fc.string({ unit: 'grapheme-ascii', maxLength: 12 }))
  // Valid values weigh more, so that a good share of runs get as far as a request.
  const valid = (arbitrary: fc.Arbitrary<string>) =>
    fc.oneof({ weight: 5, arbitrary }, { weight: 1, arbitrary: base })
  switch (kind) {
    case 'email':
      return valid(fc.emailAddress())
    case 'amount':
      return valid(fc.stringMatching(/^[0-9]{1,20}(\.[0-9]{1,10})?$/))
    case 'currency':
      return valid(fc.stringMatching(/^[A-Za-z]{3}$/))
    case 'url':
      return valid(
        fc.oneof(
          fc.webUrl({ validSchemes: ['http', 'https'] }),
          fc.constantFrom(
            'shop.example/back',
            'javascript:alert(1)',
            'ftp://x.example/',
            'https://',
            'http:///x',
          ),
        ),
      )
    case 'id':
      return valid(fc.stringMatching(/^[0-9a-f]{24}$/))
    case 'status':
      return valid(fc.constantFrom('cancel', 'cancelled', 'Canceled', ' CANCELLED ', 'created', 'active'))
    default:
      return base
  }
}

const idArbitrary = (options: ValueOptions) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^[0-9a-f]{24}$/) },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9A-F]{24}$/) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '.',
        '..',
        '%2e',
        'a/b',
        '?x',
        '#y',
        ' ',
        'é',
        ' 65A1F0C2E4B0A1B2C3D4E5F6 ',
        '"65A1F0C2E4B0A1B2C3D4E5F6"',
        "'<65a1f0c2e4b0a1b2c3d4e5f6>'",
        '<http://127.0.0.1:4010/checkout/pay?id=65a1f0c2e4b0a1b2c3d4e5f6>',
        '\u201c65a1f0c2e4b0a1b2c3d4e5f6\u201d',
        '"65a1f0c2e4b0a1b2c3d4e5f6",',
        'a b',
        'x,y',
        '<x',
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .stringMatching(/^[0-9a-fA-F]{24}$/)
        .map((id) => `http://127.0.0.1:4010/checkout/pay?id=${id}`),
    },
    {
      weight: 1,
      arbitrary: (options.argvSafe ? fc.string({ unit: 'grapheme' }) : fc.string({ unit: 'binary' })).filter(
        (s) => !s.startsWith('-') && !s.includes('\u0000'),
      ),
    },
  )

/** Random flags for `spec`: each flag absent or given (in either form) with a random value. */
export function inputArbitrary(spec: CommandSpec, options: ValueOptions = {}): fc.Arbitrary<FlagInput> {
  const values: Record<string, fc.Arbitrary<string | boolean | undefined>> = {}
  const forms: Record<string, fc.Arbitrary<'separate' | 'equals'>> = {}
  for (const { flag, kind } of spec.flags) {
    values[flag] =
      kind === 'bool'
        ? fc.constantFrom(undefined, true, false)
        : fc.option(valueArbitrary(kind, options), { nil: undefined, freq: 8 })
    forms[flag] = fc.constantFrom('separate', 'equals')
  }
  return fc.record({ id: idArbitrary(options), values: fc.record(values), forms: fc.record(forms) })
}

/**
 * An amount with more decimals than its ISO currency has (the table pay checks with is tested
 * on its own in test/unit/render/format.test.ts).
 */
function amountDigitsProblem(body: Record<string, unknown>): string | undefined {
  const { amount, currency } = body
  if (typeof amount !== 'string' || typeof currency !== 'string') return undefined
  // An amount that is no decimal number (the link's, as the service holds it) cannot be judged.
  if (!AMOUNT.test(amount)) return undefined
  const digits = currencyDigits(currency)
  const decimals = amount.includes('.') ? amount.split('.')[1].length : 0
  if (digits === undefined || decimals <= digits) return undefined
  const allowed = digits === 0 ? 'no decimals' : `at most ${digits} decimal${digits === 1 ? '' : 's'}`
  return `The amount must have ${allowed} for ${currency.toUpperCase()}.`
}
