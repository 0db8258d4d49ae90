import { type FieldErrors, PayError, validationError } from '../errors.js'
import { flagForField } from '../render/fields.js'

/**
 * Local checks of what the user typed, keyed by the service's field names so that they are
 * shown exactly like a 422 from the service (under the flag's name, exit 3).
 */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const AMOUNT = /^\d+(\.\d+)?$/
const CURRENCY = /^[A-Za-z]{3}$/

export type Rule = (value: string, field: string) => string | undefined

export const rules = {
  email: (value: string, field: string) =>
    EMAIL.test(value) ? undefined : `The ${field} must be a valid email address.`,
  amount: (value: string, field: string) => {
    if (!AMOUNT.test(value))
      return `The ${field} must be a decimal number written like 25.50 (digits and one point).`
    return /[1-9]/.test(value) ? undefined : `The ${field} must be greater than 0.`
  },
  currency: (value: string, field: string) =>
    CURRENCY.test(value) ? undefined : `The ${field} must be a 3-letter currency code, like EUR.`,
  notBlank: (value: string, field: string) =>
    value.trim() === '' ? `The ${field} field is required.` : undefined,
} satisfies Record<string, Rule>

/** Checks each given field with its rule; all failures at once, as a 422 would list them. */
export function checkFields(
  values: Record<string, string | undefined>,
  fieldRules: Record<string, Rule[]>,
): void {
  const errors: FieldErrors = {}
  for (const [field, checks] of Object.entries(fieldRules)) {
    const value = values[field]
    if (value === undefined) continue
    for (const check of checks) {
      const message = check(value, field)
      if (message) errors[field] = [...(errors[field] ?? []), message]
    }
  }
  if (Object.keys(errors).length > 0) throw validationError(errors)
}

export interface Question {
  /** Service field name; the flag is derived from it. */
  field: string
  message: string
  rules?: Rule[]
}

/**
 * Fills in required fields the user did not pass: asked for on a terminal (validated as
 * they are entered), otherwise a usage error naming every missing flag.
 */
export async function askForMissing(
  values: Record<string, string | undefined>,
  questions: Question[],
  interactive: boolean,
): Promise<void> {
  const missing = questions.filter((question) => values[question.field] === undefined)
  if (missing.length === 0) return
  if (!interactive) {
    const flags = missing.map((question) => flagForField(question.field))
    throw new PayError(`Missing required flag${flags.length === 1 ? '' : 's'}: ${flags.join(', ')}`, {
      kind: 'usage',
      hint: 'Pass them as flags (you are not on a terminal, so pay does not ask).',
    })
  }
  const { input } = await import('@inquirer/prompts')
  for (const question of missing) {
    const checks = [rules.notBlank, ...(question.rules ?? [])]
    values[question.field] = await input(
      {
        message: question.message,
        validate: (value: string) => {
          for (const check of checks) {
            const message = check(value, question.field)
            if (message) return message
          }
          return true
        },
      },
      { output: process.stderr },
    )
  }
}

/** Yes/no on stderr; declining (or Ctrl-C) is "cancelled", exit 130. */
export async function confirmOrCancel(question: string, cancelledMessage: string): Promise<void> {
  const { confirm } = await import('@inquirer/prompts')
  const yes = await confirm({ message: question, default: false }, { output: process.stderr })
  if (!yes) throw new PayError(cancelledMessage, { kind: 'cancelled' })
}
