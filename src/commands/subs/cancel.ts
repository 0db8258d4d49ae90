import { Args } from '@oclif/core'
import { cancelSubscriptions } from '../../bulk/cancel.js'
import { idInput } from '../../bulk/ids.js'
import { BaseCommand } from '../../cli/base-command.js'
import { byIdFlags } from '../../cli/flags.js'

export default class SubsCancel extends BaseCommand<typeof SubsCancel> {
  static summary = 'Cancel subscriptions by id: one, or thousands from a file'
  static description =
    'Sets each subscription to status "cancel" (already cancelled ones count as done). Ids come from ' +
    'arguments, --from-file FILE (one per line, # comments and blank lines ignored, duplicates once; ' +
    'or a report pay wrote) or - for stdin. Shows the plan and asks first; --yes skips the question; ' +
    'with no terminal to ask on and without --yes nothing is sent (exit 2). --report writes a CSV line ' +
    'per id as it happens; --resume REPORT carries on where a run stopped, never sending twice what it ' +
    'records done. Exit 0 when every id is done, 7 when some failed, 130 when interrupted with Ctrl-C ' +
    '(requests in flight finish; the rest are reported as not done).'

  static examples = [
    '<%= config.bin %> subs cancel 65b2a0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> subs cancel --from-file ids.txt --report cancel-report.csv',
    '<%= config.bin %> subs cancel --from-file ids.txt --resume cancel-report.csv',
    'cut -f1 churned.tsv | <%= config.bin %> subs cancel - --yes --json > results.json',
    '<%= config.bin %> subs cancel --from-file ids.txt --dry-run',
  ]

  static strict = false
  static args = {
    id: Args.string({ description: 'Subscription id(s); - reads ids from stdin.', ignoreStdin: true }),
  }
  static flags = byIdFlags('cancelled')

  async run(): Promise<void> {
    const input = await idInput(this.positionals, this.flags, this.io, 'subscription')
    const { api, target } = await this.api()
    await cancelSubscriptions(api, {
      ...input,
      concurrency: this.flags.concurrency,
      ...this.workflow(target),
    })
  }
}
