import { type FieldErrors, PayError, validationError } from '../../errors.js'
import { type Choice, type IO, notATerminal } from '../../runtime/io.js'
import { amountNearMiss } from '../../shared/money.js'
import { isServiceEmail } from './email.js'

/**
 * The fields of a request body as flags: one spec per flag names the service field it fills,
 * its help, whether it is required (then it has a question) and its local rules. Local rules
 * are keyed by the service's field names, so that they are shown exactly like a 422 from the
 * service (under the flag's name, exit 3).
 */

type Rule = (value: string, field: string) => string | undefined

/**
 * A rule over several fields (an amount and its currency): what is wrong, under the field to
 * blame. `asking` is the field a question is asking for, so that the message fits the answer
 * being typed (a currency the amount given does not fit is said at the currency's question).
 */
export type Relation = (values: FieldValues, asking?: string) => FieldErrors | undefined

const AMOUNT = /^\d+(\.\d+)?$/
const CURRENCY = /^[A-Za-z]{3}$/
/** What an id looks like: the service's are 24 hex digits; any word of letters, digits, - and _. */
const ID = /^[A-Za-z0-9_-]{1,100}$/

/** The most characters (code points, as the service counts them) of a title and the references. */
export const MAX_TEXT_FIELD = 50

export const rules = {
  email: (value: string, field: string) =>
    isServiceEmail(value) ? undefined : `The ${field} must be a valid email address.`,
  amount: (value: string, field: string) => {
    if (!AMOUNT.test(value)) {
      // A near miss (`-1`, `1e3`, ` 5`, `5.`) is said for what it is, as the service says it.
      const near = amountNearMiss(value)
      return `The ${field} ${near ?? 'must be a decimal number written like 25.50 (digits and one point).'}`
    }
    return /[1-9]/.test(value) ? undefined : `The ${field} must be greater than 0.`
  },
  /** The service's `max:50` on a title, reference and reference_2, in its words. */
  maxCharacters: (value: string, field: string) =>
    [...value].length > MAX_TEXT_FIELD
      ? `The ${field} may not be greater than ${MAX_TEXT_FIELD} characters.`
      : undefined,
  currency: (value: string, field: string) =>
    CURRENCY.test(value) ? undefined : `The ${field} must be a 3-letter currency code, like EUR.`,
  notBlank: (value: string, field: string) =>
    value.trim() === '' ? `The ${field} field is required.` : undefined,
  /** Where a customer is sent back: an absolute http(s) address (docs/spec/ states no rule: pay's own). */
  webAddress: (value: string, field: string) =>
    isWebAddress(value)
      ? undefined
      : `The ${field} must be an absolute http:// or https:// URL, like https://shop.example/thanks.`,
  id: (value: string, field: string) =>
    ID.test(value) ? undefined : `The ${field} must be an id: letters, digits, - and _ only.`,
} satisfies Record<string, Rule>

/** An absolute http:// or https:// URL with a host, and nothing a browser would have to guess at. */
function isWebAddress(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (!/^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i.test(value)) return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** The currency code as the service should store it: `usd` and `USD` are one currency. */
export const upperCase = (value: string) => value.toUpperCase()

interface TextFieldSpec {
  /** The service's name for the field (`phone_no` for `--phone`). */
  field: string
  description: string
  /** Required: asked for with this question on a terminal, a usage error elsewhere. */
  question?: string
  rules?: Rule[]
  /** The value as it is sent (`usd` -> `USD`), from a flag or an answer, before the rules. */
  normalize?: (value: string) => string
  boolean?: false
}

interface BooleanFieldSpec {
  field: string
  description: string
  /** `--flag` / `--no-flag`, sent only when given. */
  boolean: true
}

export type FieldSpec = TextFieldSpec | BooleanFieldSpec

/** Field specs that several request bodies share. */
export const COMMON_FIELDS = {
  email: {
    field: 'email',
    description: 'Customer e-mail address.',
    question: 'Customer e-mail',
    rules: [rules.email],
  },
  title: {
    field: 'title',
    description: 'Title shown to the customer (at most 50 characters).',
    question: 'Title',
    rules: [rules.maxCharacters],
  },
  phone: { field: 'phone_no', description: 'Customer phone number.' },
} satisfies Record<string, TextFieldSpec>

/** Values under the service's field names, only those given. */
export type FieldValues = Record<string, string | boolean | undefined>

/**
 * The fields of one request body `T` (api/types.ts), keyed by flag name, in the order they are
 * asked for.
 */
export class FieldSet<S extends Record<string, FieldSpec>, T extends object = FieldValues> {
  constructor(
    /** Each flag's spec, by flag name (the oclif adapter makes the flags of them: src/cli/flags.ts). */
    readonly specs: S,
    /** Rules over several fields, checked once each field they read has passed its own. */
    private readonly relations: Relation[] = [],
  ) {}

  /** Every flag of the set, as typed: `--email`, `--phone`. */
  get flagNames(): string[] {
    return Object.keys(this.specs).map((flag) => `--${flag}`)
  }

  /** The flags that were given, under the service's field names. */
  fromFlags(flags: { [K in keyof S]?: unknown }): FieldValues {
    const values: FieldValues = {}
    for (const [flag, spec] of Object.entries(this.specs)) {
      const value = flags[flag]
      if (typeof value === 'boolean') values[spec.field] = value
      if (typeof value === 'string') values[spec.field] = spec.boolean ? value : normal(spec, value)
    }
    return values
  }

  /**
   * The values as the request body they make, once every required field is there (fillMissing,
   * or problems(values, true) found none): a required field missing still is pay's own error.
   */
  body(values: FieldValues): T {
    const missing = this.textSpecs().filter((spec) => spec.question && typeof values[spec.field] !== 'string')
    if (missing.length > 0) {
      throw new PayError(`A request body lacks ${missing.map((spec) => spec.field).join(', ')}.`, {
        kind: 'general',
      })
    }
    return values as T
  }

  /**
   * Values as they are sent, each through its field's `normalize` (`usd` -> `USD`): for values
   * that come from elsewhere than flags and questions (the rows of `links create --from-csv`).
   */
  normalized(values: FieldValues): FieldValues {
    const out: FieldValues = { ...values }
    for (const spec of this.textSpecs()) {
      const value = out[spec.field]
      if (typeof value === 'string') out[spec.field] = normal(spec, value)
    }
    return out
  }

  /** The local rules over the values present; all failures at once, as a 422 would list them. */
  check(values: FieldValues): void {
    const errors = this.problems(values, false)
    if (Object.keys(errors).length > 0) throw validationError(errors)
  }

  /**
   * What a 422 would say of these values, under the service's field names: the rules of the
   * values present and, with `required`, every required field missing.
   */
  problems(values: FieldValues, required: boolean): FieldErrors {
    const errors: FieldErrors = {}
    for (const spec of this.textSpecs()) {
      const value = values[spec.field]
      if (typeof value !== 'string') {
        if (required && spec.question) errors[spec.field] = [`The ${spec.field} field is required.`]
        continue
      }
      for (const check of spec.rules ?? []) {
        const message = check(value, spec.field)
        if (message) errors[spec.field] = [...(errors[spec.field] ?? []), message]
      }
    }
    // A field already refused by its own rules gets no second message from a relation.
    for (const relation of this.relations) {
      for (const [field, messages] of Object.entries(relation(values) ?? {})) errors[field] ??= messages
    }
    // In the order of the flags, as they are listed in --help.
    const order = this.textSpecs().map((spec) => spec.field)
    const rank = (field: string) => (order.includes(field) ? order.indexOf(field) : order.length)
    return Object.fromEntries(Object.entries(errors).sort(([a], [b]) => rank(a) - rank(b)))
  }

  /** The service field a column of an input file names: a flag (`reference-2`) or a field (`reference_2`). */
  fieldOfColumn(column: string): string | undefined {
    const name = column.trim().toLowerCase()
    for (const [flag, spec] of Object.entries(this.specs)) {
      if (name === flag || name === spec.field) return spec.field
    }
    return undefined
  }

  /** What a service field is, as its flag's help says (the schema of `pay mcp`'s tools). */
  describe(field: string): string | undefined {
    return Object.values(this.specs).find((spec) => spec.field === field)?.description
  }

  /** Whether a service field is a yes/no one (`send_email`). */
  isBoolean(field: string): boolean {
    return Object.values(this.specs).some((spec) => spec.field === field && spec.boolean === true)
  }

  /** The column names an input file may use: every flag name. */
  get columnNames(): string[] {
    return Object.keys(this.specs)
  }

  /**
   * Fills in required fields the user did not pass: asked for on a terminal (validated as
   * they are entered, each answer also against those given before it, so that nothing typed is
   * lost to a later refusal), otherwise a usage error naming every missing flag. A field with
   * `choices` is picked from them.
   */
  async fillMissing(
    values: FieldValues,
    io: Pick<IO, 'canPrompt' | 'stdinIsTerminal' | 'stdoutIsTerminal' | 'ask' | 'choose'>,
    options: { choices?: Record<string, Choice[]> } = {},
  ): Promise<void> {
    const missing = this.textSpecs().filter((spec) => spec.question && values[spec.field] === undefined)
    if (missing.length === 0) return
    if (!io.canPrompt) {
      const flags = missing.map((spec) => `--${spec.flag}`)
      throw new PayError(`Missing required flag${flags.length === 1 ? '' : 's'}: ${flags.join(', ')}`, {
        kind: 'usage',
        hint: `Pass them as flags (${notATerminal(io)}, so pay does not ask).`,
      })
    }
    for (const spec of missing) {
      const message = spec.question ?? spec.field
      const choices = options.choices?.[spec.field]
      if (choices && choices.length > 0) {
        values[spec.field] = await io.choose({ message, choices })
        continue
      }
      const checks = [rules.notBlank, ...(spec.rules ?? [])]
      const answer = await io.ask({
        message,
        transform: spec.normalize,
        validate: (typed) => {
          const value = normal(spec, typed)
          for (const check of checks) {
            const problem = check(value, spec.field)
            if (problem) return problem
          }
          for (const relation of this.relations) {
            const problem = relation({ ...values, [spec.field]: value }, spec.field)?.[spec.field]?.[0]
            if (problem) return problem
          }
          return true
        },
      })
      values[spec.field] = normal(spec, answer)
    }
  }

  private textSpecs(): (TextFieldSpec & { flag: string })[] {
    return Object.entries(this.specs).flatMap(([flag, spec]) => (spec.boolean ? [] : [{ ...spec, flag }]))
  }
}

/**
 * A FieldSet whose values make the request body T, its specs typed as written:
 * `fieldsOf<LinkInput>()({ email: …, amount: … }, relations)`.
 */
export const fieldsOf =
  <T extends object>() =>
  <S extends Record<string, FieldSpec>>(specs: S, relations: Relation[] = []) =>
    new FieldSet<S, T>(specs, relations)

const normal = (spec: TextFieldSpec, value: string) => (spec.normalize ? spec.normalize(value) : value)
