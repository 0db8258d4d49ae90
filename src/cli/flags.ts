import { Flags } from '@oclif/core'

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

/** Output-shaping flags for commands that print records. */
export const outputFlags = {
  columns: Flags.string({
    description: 'Comma-separated fields to show in the table or TSV (e.g. _id,status,amount).',
    helpGroup: 'OUTPUT',
    parse: async (input) => input,
  }),
  quiet: Flags.boolean({ char: 'q', description: 'Print only ids, one per line.', helpGroup: 'OUTPUT' }),
}

/** --yes and --dry-run of the commands that ask before they delete or cancel. */
export const consentFlags = (verb: 'deleted' | 'cancelled') => ({
  yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
  'dry-run': Flags.boolean({ description: `Show what would be ${verb}; send nothing.` }),
})

/** The flags of `links delete` and `subs delete`. */
export const deleteFlags = { ...consentFlags('deleted'), ...outputFlags }

/** Fetch every page of a list, not only the first. */
export const allPagesFlag = {
  all: Flags.boolean({ description: 'Fetch every page, not only the first.' }),
}
