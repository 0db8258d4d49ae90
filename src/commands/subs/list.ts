import { BaseCommand } from '../../cli/base-command.js'
import { allPagesFlag, outputFlags } from '../../cli/flags.js'
import {
  SUBSCRIPTION_FILTER_FLAGS,
  SUBSCRIPTION_VIEW,
  subscriptionFilter,
} from '../../resources/subscriptions.js'

export default class SubsList extends BaseCommand<typeof SubsList> {
  static summary = 'List subscriptions'
  static description =
    'Lists the subscriptions of the business. Filters apply to what was fetched: use --all to fetch every page first.'

  static examples = [
    '<%= config.bin %> subs list',
    '<%= config.bin %> subs list --all --status created -q',
    '<%= config.bin %> subs list --email jane@example.com --json',
  ]

  static flags = { ...SUBSCRIPTION_FILTER_FLAGS, ...allPagesFlag, ...outputFlags }

  async run(): Promise<void> {
    const { api } = await this.api()
    const { items, more } = await api.listSubscriptions({ all: this.flags.all })
    this.out.list(items.filter(subscriptionFilter(this.flags)), SUBSCRIPTION_VIEW)
    if (more) this.out.morePages(SUBSCRIPTION_VIEW)
  }
}
