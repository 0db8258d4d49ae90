/**
 * The library's arguments (library.ts), checked as the CLI checks its flags: a value a function
 * does not take throws a SandboxArgumentError naming the function, the argument, what it takes and
 * what it got, before anything is done. A test that passes `'canceled'` for `'cancelled'`, or a
 * field it misspelt (undefined), hears of it rather than getting a silent no-op or a default.
 */

export class SandboxArgumentError extends TypeError {
  constructor(
    /** The function as its user calls it: `sandbox.pay(id, outcome)`. */
    readonly call: string,
    message: string,
  ) {
    super(`${call}: ${message}`)
    this.name = 'SandboxArgumentError'
  }
}

/** A key shown as pay shows keys: at most its first 4 and last 4 characters. */
function redacted(key: string): string {
  const shown = Math.min(4, Math.floor(key.length / 4))
  return shown === 0 ? '…' : `${key.slice(0, shown)}…${key.slice(-shown)}`
}

/** A value as the message says it was got: text quoted (cut at 60), a list of such, else its kind. */
export function described(value: unknown, depth = 0): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value)
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean')
    return String(value)
  if (Array.isArray(value)) {
    if (depth > 0) return 'an array'
    const shown = value.slice(0, 3).map((item) => described(item, depth + 1))
    return `[${[...shown, ...(value.length > 3 ? ['…'] : [])].join(', ')}]`
  }
  if (value instanceof Date) return 'a Date'
  if (typeof value === 'function') return 'a function'
  return typeof value === 'object' ? 'an object' : typeof value
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)

/** The checks of one function's arguments, each throwing what `call` says. */
export function argumentsOf(call: string) {
  const fail = (message: string): never => {
    throw new SandboxArgumentError(call, message)
  }
  const must = (ok: boolean, name: string, takes: string, value: unknown, shown = described(value)) => {
    if (!ok) fail(`${name} must be ${takes}; got ${shown}.`)
  }
  return {
    fail,
    must,
    /** At most `most` arguments given. */
    count(given: number, most: number) {
      if (given > most)
        fail(
          most === 0 ? `takes no arguments; got ${given}.` : `takes at most ${most} arguments; got ${given}.`,
        )
    },
    /** An options object (or nothing) naming only options of `known`. */
    options(value: unknown, known: readonly string[], name = 'options'): Record<string, unknown> {
      if (value === undefined) return {}
      must(isPlainObject(value), name, 'an object', value)
      const options = value as Record<string, unknown>
      const unknown = Object.keys(options).find((key) => !known.includes(key))
      if (unknown !== undefined)
        fail(`${name} has no ${JSON.stringify(unknown)}; it takes ${known.join(', ')}.`)
      return options
    },
    /** An integer from `min` to `max`, when given. */
    integer(value: unknown, name: string, min: number, max: number) {
      if (value === undefined) return
      must(
        typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max,
        name,
        `an integer from ${min} to ${max}`,
        value,
      )
    },
    /** Text that is not empty. */
    text(value: unknown, name: string, takes: string) {
      must(typeof value === 'string' && value !== '', name, takes, value)
    },
    /** An array of strings. */
    textList(value: unknown, name: string, takes: string) {
      must(Array.isArray(value) && value.every((item) => typeof item === 'string'), name, takes, value)
    },
    /** A non-empty list of keys, each text without spaces; shown redacted. */
    keyList(value: unknown, name: string) {
      const ok =
        Array.isArray(value) &&
        value.length > 0 &&
        value.every((key) => typeof key === 'string' && /^\S+$/.test(key))
      const one = (key: unknown) =>
        typeof key === 'string' ? JSON.stringify(redacted(key)) : described(key, 1)
      const shown = Array.isArray(value) ? `[${value.map(one).join(', ')}]` : one(value)
      must(ok, name, 'a non-empty array of keys, each text without spaces', value, shown)
    },
    /** One of the sandbox's keys, when given; shown redacted. */
    key(value: unknown, keys: readonly string[], name = 'key') {
      if (value === undefined) return
      const shown = typeof value === 'string' ? JSON.stringify(redacted(value)) : described(value)
      must(typeof value === 'string' && keys.includes(value), name, "one of the sandbox's keys", value, shown)
    },
  }
}

/** What a fault rule looks like, for the messages. */
export const RULES_TAKEN = 'an array of rules, each a string ("POST /payment-links 503 x2")'
/** What fixtures are, for the messages. */
export const FIXTURES_TAKEN = "a fixture file's name or a fixtures object"
