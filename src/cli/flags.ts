import { Flags, type Interfaces } from '@oclif/core'
import { DURATION_FORMS, type Duration, durationOfSeconds, parseDuration } from '../shared/duration.js'
import type { FieldSet, FieldSpec } from '../work/common/field-set.js'
import type { OptionSpec, OptionSpecs } from '../work/common/options.js'

const seconds = Flags.custom<number>({
  parse: async (input) => {
    const value = Number(input)
    if (!/^\d+(\.\d+)?$/.test(input.trim()) || !(value > 0)) {
      throw new Error(`Expected a number of seconds greater than 0 but received: ${input}`)
    }
    return value
  },
})

/** The flags every command takes. */
export const globalFlags = {
  profile: Flags.string({
    char: 'p',
    description: 'Profile to use (default: $PAY_PROFILE, then the current profile). `sandbox` is built in.',
    helpGroup: 'GLOBAL',
  }),
  'base-url': Flags.string({
    description: 'Service base URL (default: $PAY_BASE_URL, then the profile).',
    helpGroup: 'GLOBAL',
  }),
  json: Flags.boolean({
    description: 'Print data as JSON; errors as JSON on stderr.',
    helpGroup: 'GLOBAL',
  }),
  debug: Flags.boolean({
    description: 'Trace HTTP on stderr (key redacted) and show stack traces.',
    helpGroup: 'GLOBAL',
  }),
  timeout: seconds({
    description: 'Seconds allowed for each request, retries included.',
    env: 'PAY_TIMEOUT',
    default: 30,
    helpGroup: 'GLOBAL',
  }),
}

/**
 * The global flags but --timeout, for `links wait`, whose --timeout is how long it waits (each of
 * its requests is limited by PAY_TIMEOUT alone).
 */
export const globalFlagsButTimeout = (({ timeout: _, ...others }) => others)(globalFlags)

/**
 * The global flags of the commands that act on the local sandbox's files and send nothing to a
 * service (`sandbox start`, which is one, `sandbox packages`, the snapshots): every global flag is
 * taken, as everywhere, but a profile or base URL given must be the user's own sandbox
 * (BaseCommand checks it with sandbox/local-profile.ts: exit 2 otherwise).
 */
export const localFlags = {
  ...globalFlags,
  profile: Flags.string({
    char: 'p',
    description:
      'Only `sandbox` (the built-in profile) or a profile of your own sandbox: this command acts on the local sandbox.',
    helpGroup: 'GLOBAL',
  }),
  'base-url': Flags.string({
    description: 'Only the address of your own sandbox: this command acts on the local sandbox.',
    helpGroup: 'GLOBAL',
  }),
}

/**
 * The global flags of the sandbox commands (`sandbox pay`, `sandbox reset`): the same, but their
 * profile falls back to the built-in sandbox, never the current profile (RunContext.sandboxTarget).
 */
export const sandboxGlobalFlags = {
  ...globalFlags,
  profile: Flags.string({
    char: 'p',
    description:
      'Profile whose sandbox server to act through (default: $PAY_PROFILE, then the built-in `sandbox`, never the current profile).',
    helpGroup: 'GLOBAL',
  }),
  'base-url': Flags.string({
    description:
      'Base URL of the sandbox server to act through (default: $PAY_BASE_URL, then the profile). Without one running there, only the built-in profile falls back to the local store.',
    helpGroup: 'GLOBAL',
  }),
}

/** --jq: a jq expression over the JSON output (every command that prints records, and `pay api`). */
export const jqFlag = {
  jq: Flags.string({
    description:
      'Filter the JSON output with a jq expression (jq 1.7.1); strings print raw, other values as JSON, one per line. Implies --json.',
    helpGroup: 'OUTPUT',
  }),
}

/** Output-shaping flags for commands that print records. */
export const outputFlags = {
  ...jqFlag,
  columns: Flags.string({
    description: 'Comma-separated fields to show in the table or TSV (e.g. _id,status,amount).',
    helpGroup: 'OUTPUT',
    parse: async (input) => {
      if (input.split(',').every((name) => name.trim() === '')) {
        throw new Error('Expected at least one column name, e.g. --columns _id,status')
      }
      return input
    },
  }),
  quiet: Flags.boolean({ char: 'q', description: 'Print only ids, one per line.', helpGroup: 'OUTPUT' }),
}

/** --yes and --dry-run of the commands that ask before they delete or cancel. */
export const consentFlags = (verb: 'deleted' | 'cancelled' | 'changed') => ({
  yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
  'dry-run': Flags.boolean({ description: `Show what would be ${verb}; change nothing.` }),
})

/**
 * The flags of the bulk commands by id (`subs cancel`, `links delete`, `subs delete`): where
 * the ids come from, consent, concurrency, and the report (never overwritten silently).
 */
export const byIdFlags = (verb: 'deleted' | 'cancelled') => ({
  'from-file': Flags.string({
    char: 'f',
    description:
      'File with one id per line (a first line `id`, `_id` or `subscription_id` is skipped; payment URLs give their id), a --report CSV pay wrote (its id column), or a list pay wrote with --format csv (its _id column); - for stdin.',
  }),
  ...consentFlags(verb),
  concurrency: concurrencyFlag(),
  ...reportFlags(),
  ...outputFlags,
})

const concurrencyFlag = () =>
  Flags.integer({ description: 'Requests in flight at once.', default: 4, min: 1, max: 64 })

/**
 * A flag that needs `others` given with it: oclif refuses it alone as `dependsOn` does ("All of
 * the following must be provided when using --append: --report"), but its usage line is not
 * drawn from it, as `dependsOn`'s is (`[--append [--report <value> ]]`, `[-y ]`).
 */
export const needs = (...others: string[]) => ({ relationships: [{ type: 'all' as const, flags: others }] })

/** --report, --append, --force, --resume and --bom of the bulk commands (a report is never overwritten silently). */
const reportFlags = (dependsOn?: string) => ({
  report: Flags.string({
    description:
      'Write a CSV report (mode 0600) to this file: a row per result as it happens, one row per item once the run ends, and FILE.meta.json beside it. An existing file is refused.',
    exclusive: ['resume'],
    ...(dependsOn ? needs(dependsOn) : {}),
  }),
  append: Flags.boolean({ description: 'Add this run to an existing --report file.', ...needs('report') }),
  force: Flags.boolean({
    description:
      'Replace an existing --report file; with --resume, resume a report made against another profile or base URL.',
    exclusive: ['append'],
    ...(dependsOn ? needs(dependsOn) : {}),
  }),
  resume: Flags.string({
    description:
      'Carry on from a report an earlier run wrote: what it records done is skipped without a request, ' +
      'the rest tried again, the report brought up to date. A run that was killed needs its input again, unless its ' +
      'report names every id of it.',
    ...(dependsOn ? needs(dependsOn) : {}),
  }),
  bom: Flags.boolean({
    description:
      'Start the report with a UTF-8 byte-order mark, so that Excel reads accents, CJK and Arabic right (a resumed report keeps the one it has).',
    relationships: [{ type: 'some' as const, flags: ['report', 'resume'] }],
  }),
})

/**
 * `links create --from-csv` and `subs create --from-csv`: a record per row of a spreadsheet,
 * resumable; `made` names it (`link`), `columns` gives the header's field names as flags.
 */
export const fromCsvFlags = (made: string, columns: string) => ({
  'from-csv': Flags.string({
    description:
      `Create one ${made} per row of this CSV file (- for stdin). Its header names the fields, as flags ` +
      `(${columns}) or as the service names them; cells are separated by commas, semicolons or tabs, as ` +
      'the header row is.',
  }),
  'skip-invalid': Flags.boolean({
    description: 'Send the rows that pass the checks even when others do not (those are reported).',
    ...needs('from-csv'),
  }),
  'retry-unknown': Flags.boolean({
    description:
      'With --resume: send again rows whose POST may have reached the service, with the same Idempotency-Key.',
    ...needs('resume'),
  }),
  yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.', ...needs('from-csv') }),
  'dry-run': Flags.boolean({
    description: 'Show what would be created; send nothing.',
    ...needs('from-csv'),
  }),
  concurrency: concurrencyFlag(),
  ...reportFlags('from-csv'),
})

/** How much of a list to fetch and show. */
export const listFlags = {
  all: Flags.boolean({ description: 'Fetch every page, not only the first.' }),
  jsonl: Flags.boolean({
    description:
      'Print one JSON record per line, each page as it arrives (with --jq, the expression runs on each record).',
    helpGroup: 'OUTPUT',
  }),
  limit: Flags.integer({
    description: 'Show at most N records (matches, with filters). Default: 30 on a terminal, all when piped.',
    min: 1,
  }),
  format: Flags.string({
    description:
      "csv: print the list as CSV for a spreadsheet: a header row, --columns honoured, a cell a spreadsheet would run as a formula prefixed with '.",
    options: ['csv'],
    helpGroup: 'OUTPUT',
  }),
  bom: Flags.boolean({
    description:
      'With --format csv: start with a UTF-8 byte-order mark, so that Excel reads accents, CJK and Arabic right.',
    helpGroup: 'OUTPUT',
    ...needs('format'),
  }),
}

/** Every create takes the Idempotency-Key to send, so that a script can retry the same request. */
export const createFlags = {
  'idempotency-key': Flags.string({
    description:
      'Idempotency-Key to send (default: a new one). Reuse the key of a create that may have happened.',
    parse: async (input) => {
      if (!/^[\x21-\x7e]{1,255}$/.test(input)) {
        throw new Error('Expected 1 to 255 visible ASCII characters (no spaces), e.g. a UUID')
      }
      return input
    },
  }),
}

/**
 * A duration: `30d`, `12h`, `2w`, `3mo`, `1y`, ISO 8601 `P1Y2M` (`subs list --overdue`, `links
 * wait --timeout`). One that means nothing is a usage error naming the forms.
 */
export const durationFlag = Flags.custom<Duration>({
  helpValue: 'DURATION',
  parse: async (input) => {
    const duration = parseDuration(input)
    if (!duration) throw new Error(`Expected a duration, ${DURATION_FORMS}; received: ${input}`)
    return duration
  },
})

/**
 * How long a wait lasts (`links wait --timeout`): a bare number is seconds, as the global
 * --timeout's is (`2`, `0.5`), or a duration as durationFlag reads it (`10m`, `PT10M`); 0 waits
 * for ever. One that means neither is a usage error naming both forms.
 */
export const waitTimeoutFlag = Flags.custom<Duration>({
  helpValue: 'SECONDS|DURATION',
  parse: async (input) => {
    const bare = /^\d+(\.\d+)?$/.test(input.trim())
    const duration = bare ? durationOfSeconds(Number(input)) : parseDuration(input)
    if (!duration) {
      throw new Error(
        `Expected a number of seconds (2, 0.5; 0 waits for ever) or a duration, ${DURATION_FORMS}; received: ${input}`,
      )
    }
    return duration
  },
})

type FlagOfField<S extends FieldSpec> = S extends { boolean: true }
  ? Interfaces.BooleanFlag<boolean>
  : Interfaces.OptionFlag<string | undefined>

/** The flags of a request body's fields (src/work/common/field-set.ts): `--email`, `--send-email/--no-send-email`. */
export function fieldFlags<S extends Record<string, FieldSpec>>(
  fields: FieldSet<S, never> | { specs: S },
): { [K in keyof S]: FlagOfField<S[K]> } {
  return Object.fromEntries(
    Object.entries(fields.specs).map(([flag, spec]) => [
      flag,
      spec.boolean
        ? Flags.boolean({ description: spec.description, allowNo: true })
        : Flags.string({ description: spec.description }),
    ]),
  ) as { [K in keyof S]: FlagOfField<S[K]> }
}

type FlagOfOption<S extends OptionSpec> = S['kind'] extends 'boolean'
  ? Interfaces.BooleanFlag<boolean | undefined>
  : S['kind'] extends 'duration'
    ? Interfaces.OptionFlag<Duration | undefined>
    : Interfaces.OptionFlag<string | undefined>

/**
 * The flags of a work function's options (src/work/common/options.ts): a filter's text, a yes/no
 * (`--paid/--no-paid`), a duration parsed as parseOption parses it for `pay mcp` too.
 */
export function optionFlags<S extends OptionSpecs>(specs: S): { [K in keyof S]: FlagOfOption<S[K]> } {
  return Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => {
      if (spec.kind === 'boolean')
        return [name, Flags.boolean({ description: spec.description, allowNo: spec.allowNo ?? false })]
      if (spec.kind === 'duration') return [name, durationFlag({ description: spec.description })]
      return [
        name,
        Flags.string({
          description: spec.description,
          ...(spec.helpValue ? { helpValue: spec.helpValue } : {}),
          ...(spec.options ? { options: [...spec.options] } : {}),
        }),
      ]
    }),
  ) as { [K in keyof S]: FlagOfOption<S[K]> }
}
