import { Args } from '@oclif/core'
import { idReportHelp } from '../../bulk/help.js'
import { BaseCommand } from '../../cli/base-command.js'
import { byIdFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { deleteSubscriptions } from '../../work/subs/delete.js'

export default class SubsDelete extends BaseCommand<typeof SubsDelete> {
  static calls: readonly EndpointName[] = ['getSubscription', 'deleteSubscription']
  static summary = 'Delete subscriptions (cannot be undone)'
  static description =
    'Deletes the subscriptions outright. To stop billing but keep the record, use `pay subs cancel`. ' +
    'Ids come as for `pay subs cancel` (arguments, --from-file, -). Shows the profile, base URL and ' +
    'subscriptions (each looked up, also with --dry-run and when refusing: up to 20 described, how many ' +
    "would be deleted and not found, their packages' prices by currency) and asks first; --yes skips " +
    'the question; without a terminal and without --yes nothing is changed (exit 2). With a report, each ' +
    'subscription is read before it is deleted, so that the report says what was deleted.' +
    idReportHelp(
      'deleted, not_found, failed, invalid, not_done',
      'email, package, amount and currency of the subscription deleted',
    )

  static examples = [
    '<%= config.bin %> subs delete 65b2a0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> subs delete 65b2a0c2e4b0a1b2c3d4e5f6 65b2a0c2e4b0a1b2c3d4e5f7 --yes --json',
  ]

  static aliases = ['subs:rm']
  static strict = false
  static args = {
    id: Args.string({ description: 'Subscription id(s); - reads ids from stdin.', ignoreStdin: true }),
  }
  static flags = byIdFlags('deleted')

  async run(): Promise<Result> {
    return shown.bulk(await deleteSubscriptions({ ...this.flags, ids: this.positionals }, this.context))
  }
}
