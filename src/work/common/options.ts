import { usageError } from '../../errors.js'
import { DURATION_FORMS, type Duration, parseDuration } from '../../shared/duration.js'

/**
 * What a command's work takes besides a request body's fields (the filters of a list), declared
 * as plain data: the oclif adapter makes flags of them (src/cli/flags.ts, optionFlags) and `pay
 * mcp` makes its tools' arguments of them (src/agent), both parsing a value with parseOption.
 * Names are the flags' (`created-after`); a tool's argument is the same with `_`.
 */
export type OptionSpec =
  | { kind: 'text'; description: string; helpValue?: string; options?: readonly string[] }
  | { kind: 'boolean'; description: string; allowNo?: boolean }
  | { kind: 'duration'; description: string }

export type OptionSpecs = Readonly<Record<string, OptionSpec>>

/** The value an option of `kind` has once parsed. */
type ValueOf<S extends OptionSpec> = S['kind'] extends 'boolean'
  ? boolean
  : S['kind'] extends 'duration'
    ? Duration
    : string

/** The options given, each parsed: what a work function takes. */
export type OptionValues<S extends OptionSpecs> = { [K in keyof S]?: ValueOf<S[K]> }

/**
 * One option's value as given (a flag's text, a tool's JSON value), parsed as its kind says: a
 * duration (`30d`, `P1M`) into a Duration, a boolean as true or false. A value it cannot read is
 * a usage error naming the option and the forms it takes.
 */
export function parseOption(name: string, spec: OptionSpec, value: unknown): unknown {
  if (spec.kind === 'boolean') {
    if (typeof value === 'boolean') return value
    throw usageError(`--${name} is true or false; received ${JSON.stringify(value)}.`)
  }
  if (typeof value !== 'string') throw usageError(`--${name} takes text; received ${JSON.stringify(value)}.`)
  if (spec.kind === 'duration') {
    const duration = parseDuration(value)
    if (!duration) throw usageError(`--${name}: expected a duration, ${DURATION_FORMS}; received: ${value}`)
    return duration
  }
  if (spec.options && !spec.options.includes(value))
    throw usageError(`--${name} is one of ${spec.options.join(', ')}; received: ${value}`)
  return value
}

/** The options of `specs` found in `given` (by flag name), each parsed; those not given left out. */
export function parseOptions<S extends OptionSpecs>(
  specs: S,
  given: Record<string, unknown>,
): OptionValues<S> {
  const values: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(specs)) {
    if (given[name] !== undefined) values[name] = parseOption(name, spec, given[name])
  }
  return values as OptionValues<S>
}
