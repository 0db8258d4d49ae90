import { BaseCommand } from '../../cli/base-command.js'
import { allPagesFlag, outputFlags } from '../../cli/flags.js'
import { LINK_FILTER_FLAGS, LINK_VIEW, linkFilter } from '../../resources/links.js'

export default class LinksList extends BaseCommand<typeof LinksList> {
  static summary = 'List payment links'
  static description =
    'Lists the payment links of the business, newest first as the service orders them. ' +
    'Filters apply to what was fetched: use --all to fetch every page first.'

  static examples = [
    '<%= config.bin %> links list',
    '<%= config.bin %> links list --all --no-paid --status Active',
    '<%= config.bin %> links list --email jane@example.com --json',
    '<%= config.bin %> links list --all -q',
  ]

  static flags = { ...LINK_FILTER_FLAGS, ...allPagesFlag, ...outputFlags }

  async run(): Promise<void> {
    const { api } = await this.api()
    const { items, more } = await api.listLinks({ all: this.flags.all })
    this.out.list(items.filter(linkFilter(this.flags)), LINK_VIEW)
    if (more) this.out.morePages(LINK_VIEW)
  }
}
