import { BaseCommand } from '../../cli/base-command.js'
import { listFlags, outputFlags } from '../../cli/flags.js'
import { walkRecords } from '../../resources/filters.js'
import {
  SUBSCRIPTION_FILTER_FLAGS,
  SUBSCRIPTION_VIEW,
  subscriptionFilter,
} from '../../resources/subscriptions.js'

export default class SubsList extends BaseCommand<typeof SubsList> {
  static summary = 'List subscriptions'
  static description =
    'Lists the subscriptions of the business. Without filters it reads the first page (--all: ' +
    'every page); filters search every page. On a terminal at most 30 are shown unless --limit ' +
    'says otherwise.'

  static aliases = ['subs:ls']
  static examples = [
    '<%= config.bin %> subs list',
    '<%= config.bin %> subs list --status created -q',
    '<%= config.bin %> subs list --status cancelled --email jane@example.com --json',
  ]

  static flags = { ...SUBSCRIPTION_FILTER_FLAGS, ...listFlags, ...outputFlags }

  async run(): Promise<void> {
    const match = subscriptionFilter(this.flags)
    const { api } = await this.api()
    const found = walkRecords(api.subscriptionPages(), match, this.listScope())
    await this.out.listFrom(found.batches, SUBSCRIPTION_VIEW)
    this.out.listNotes(found.outcome(), SUBSCRIPTION_VIEW)
  }
}
