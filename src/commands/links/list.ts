import { BaseCommand } from '../../cli/base-command.js'
import { listFlags, optionFlags, outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { SORT_FLAG } from '../../work/common/sort.js'
import { LINK_FILTERS } from '../../work/links/filters.js'
import { listLinks } from '../../work/links/list.js'
import { LINK_VIEW } from '../../work/links/view.js'

export default class LinksList extends BaseCommand<typeof LinksList> {
  static calls: readonly EndpointName[] = ['listLinks']
  static summary = 'List payment links'
  static description =
    'Lists the payment links of the business, newest first as the service orders them. Without ' +
    'filters it reads the first page (--all: every page); filters (--search and the dates too) search ' +
    'every page, and --sort orders every match before --limit takes the first. On a terminal at most ' +
    '30 are shown unless --limit says otherwise. --format csv writes a spreadsheet.'

  static aliases = ['links:ls']
  static examples = [
    '<%= config.bin %> links list',
    '<%= config.bin %> links list --no-paid --status active',
    '<%= config.bin %> links list --email jane@example.com --json',
    '<%= config.bin %> links list --all -q',
    '<%= config.bin %> links list --search "invoice 42" --created-after 2026-11-01',
    '<%= config.bin %> links list --sort -amount --format csv > links.csv',
  ]

  static flags = { ...optionFlags(LINK_FILTERS), ...SORT_FLAG, ...listFlags, ...outputFlags }

  async run(): Promise<Result> {
    const found = await listLinks(this.flags, this.context)
    return shown.list(found.batches, LINK_VIEW, found.outcome)
  }
}
