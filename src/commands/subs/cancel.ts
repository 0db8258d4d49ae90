import { Args } from '@oclif/core'
import { idReportHelp } from '../../bulk/help.js'
import { BaseCommand } from '../../cli/base-command.js'
import { byIdFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { cancelMany } from '../../work/subs/cancel.js'

export default class SubsCancel extends BaseCommand<typeof SubsCancel> {
  static calls: readonly EndpointName[] = ['getSubscription', 'updateSubscription']
  static summary = 'Cancel subscriptions by id: one, or thousands from a file'
  static description =
    'Sets each subscription to status "cancel" (already cancelled ones count as done). Ids come from ' +
    'arguments, --from-file FILE (one per line, # comments and blank lines ignored, duplicates once; ' +
    'or a report pay wrote) or - for stdin; a payment-style URL gives its ?id=, spaces are trimmed, hex ' +
    'ids lower-cased. Shows the plan (every subscription looked up, a few at a time with progress, also with ' +
    '--dry-run and when refusing: up to 20 described, how many would be cancelled, are already, are not found, their ' +
    "packages' prices by currency) and asks first; --yes skips the question; with no terminal to ask on and without " +
    '--yes nothing is changed (exit 2). Exit 0 when every id is done, 7 when some were not (the summary ' +
    'counts them by status), 6 when the service stopped answering (10 failures in a row: the rest are ' +
    'not_done), 130 when interrupted with Ctrl-C (requests in flight finish; the rest are not_done).' +
    idReportHelp(
      'cancelled, already_cancelled, not_found, failed, invalid, not_done',
      'email, package, amount and currency of the subscription',
    )

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

  async run(): Promise<Result> {
    return shown.bulk(await cancelMany({ ...this.flags, ids: this.positionals }, this.context))
  }
}
