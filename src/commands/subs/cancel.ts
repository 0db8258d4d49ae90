import { Args, Flags } from '@oclif/core'
import { cancelSubscriptions } from '../../bulk/cancel.js'
import { collectIds } from '../../bulk/ids.js'
import { BaseCommand } from '../../cli/base-command.js'
import { consentFlags, outputFlags } from '../../cli/flags.js'
import { usageError } from '../../errors.js'

export default class SubsCancel extends BaseCommand<typeof SubsCancel> {
  static summary = 'Cancel subscriptions by id: one, or thousands from a file'
  static description =
    'Sets each subscription to status "cancel" (already cancelled ones count as done). Ids come from ' +
    'arguments, --from-file FILE (one per line, # comments and blank lines ignored, duplicates once) ' +
    'or - for stdin. Shows the plan and asks first; --yes skips the question; without a terminal and ' +
    'without --yes nothing is sent (exit 2). Exit 0 when every id is done, 7 when some failed, 130 ' +
    'when interrupted with Ctrl-C (requests in flight finish; the rest are reported as not done).'

  static examples = [
    '<%= config.bin %> subs cancel 65b2a0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> subs cancel --from-file ids.txt --report cancel-report.csv',
    'cut -f1 churned.tsv | <%= config.bin %> subs cancel - --yes --json > results.json',
    '<%= config.bin %> subs cancel --from-file ids.txt --dry-run',
  ]

  static strict = false
  static args = {
    id: Args.string({ description: 'Subscription id(s); - reads ids from stdin.', ignoreStdin: true }),
  }
  static flags = {
    'from-file': Flags.string({
      char: 'f',
      description: 'File with one subscription id per line (- for stdin).',
    }),
    ...consentFlags('cancelled'),
    concurrency: Flags.integer({ description: 'Requests in flight at once.', default: 4, min: 1, max: 64 }),
    report: Flags.string({ description: 'Write per-id results as CSV to this file, as they happen.' }),
    ...outputFlags,
  }

  async run(): Promise<void> {
    const ids = await collectIds(this.positionals, this.flags['from-file'], this.io)
    if (ids.length === 0) {
      const fromInput = this.positionals.includes('-') || this.flags['from-file'] !== undefined
      if (!fromInput) {
        throw usageError(
          'No subscription ids given.',
          'Pass ids as arguments, --from-file FILE, or - to read stdin.',
        )
      }
      // An empty list from a pipe or a file (a filter that matched nothing) is not an error.
      this.out.nothingToDo('Nothing to cancel.')
      return
    }
    const { api, target } = await this.api()
    await cancelSubscriptions({
      api,
      ids,
      concurrency: this.flags.concurrency,
      reportFile: this.flags.report,
      ...this.workflow(target),
    })
  }
}
