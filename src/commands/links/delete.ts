import { Args } from '@oclif/core'
import { idReportHelp } from '../../bulk/help.js'
import { BaseCommand } from '../../cli/base-command.js'
import { byIdFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { deleteLinks } from '../../work/links/delete.js'

export default class LinksDelete extends BaseCommand<typeof LinksDelete> {
  static calls: readonly EndpointName[] = ['getLink', 'deleteLink']
  static summary = 'Delete payment links'
  static description =
    'Ids come from arguments, --from-file FILE (one per line; or a report pay wrote: its ids, or the ' +
    '_id of each link a `links create --from-csv` report made) or - for stdin; a payment URL gives its ' +
    'id. Shows the profile, base URL and links (each looked up, a few at a time, also with --dry-run and ' +
    'when refusing: up to 20 described, how many would be deleted and not found, their total by currency; ' +
    'those not found are named), then asks before deleting. --yes skips the question; ' +
    'without a terminal and without --yes nothing is changed (exit 2). With a report, each link is read ' +
    'before it is deleted, so that the report says what was deleted.' +
    idReportHelp(
      'deleted, not_found, failed, invalid, not_done',
      'email, title, amount and currency of the link deleted',
    )

  static examples = [
    '<%= config.bin %> links delete 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> links delete 65a1f0c2e4b0a1b2c3d4e5f6 65a1f0c2e4b0a1b2c3d4e5f7 --yes',
    '<%= config.bin %> links delete 65a1f0c2e4b0a1b2c3d4e5f6 --dry-run',
  ]

  static aliases = ['links:rm']
  static strict = false
  static args = {
    id: Args.string({ description: 'Payment link id(s); - reads ids from stdin.', ignoreStdin: true }),
  }
  static flags = byIdFlags('deleted')

  async run(): Promise<Result> {
    return shown.bulk(await deleteLinks({ ...this.flags, ids: this.positionals }, this.context))
  }
}
