import { BaseCommand } from '../../cli/base-command.js'
import { listFlags, outputFlags } from '../../cli/flags.js'
import type { Result } from '../../render/result.js'
import { listLinks } from '../../resources/link-runs.js'
import { LINK_FILTER_FLAGS } from '../../resources/links.js'

export default class LinksList extends BaseCommand<typeof LinksList> {
  static summary = 'List payment links'
  static description =
    'Lists the payment links of the business, newest first as the service orders them. Without ' +
    'filters it reads the first page (--all: every page); filters search every page. On a terminal ' +
    'at most 30 are shown unless --limit says otherwise.'

  static aliases = ['links:ls']
  static examples = [
    '<%= config.bin %> links list',
    '<%= config.bin %> links list --no-paid --status active',
    '<%= config.bin %> links list --email jane@example.com --json',
    '<%= config.bin %> links list --all -q',
  ]

  static flags = { ...LINK_FILTER_FLAGS, ...listFlags, ...outputFlags }

  async run(): Promise<Result> {
    return listLinks(this.flags, this.context)
  }
}
