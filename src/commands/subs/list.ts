import { Flags } from '@oclif/core'
import { BaseCommand, outputFlags } from '../../base-command.js'
import { plain, type Rec } from '../../render/format.js'
import { SUBSCRIPTION_VIEW } from '../../render/views.js'

export default class SubsList extends BaseCommand<typeof SubsList> {
  static summary = 'List subscriptions'
  static description =
    'Lists the subscriptions of the business. Filters apply to what was fetched: use --all to fetch every page first.'

  static examples = [
    '<%= config.bin %> subs list',
    '<%= config.bin %> subs list --all --status created -q',
    '<%= config.bin %> subs list --email jane@example.com --json',
  ]

  static flags = {
    status: Flags.string({
      description: 'Only subscriptions with this status (e.g. created, cancel); case-insensitive.',
    }),
    email: Flags.string({ description: 'Only subscriptions of this customer e-mail; case-insensitive.' }),
    all: Flags.boolean({ description: 'Fetch every page, not only the first.' }),
    ...outputFlags,
  }

  async run(): Promise<void> {
    const { api } = await this.api()
    const { items, more } = await api.listSubscriptions({ all: this.flags.all })
    const { status, email } = this.flags
    const lower = (value: unknown) => plain(value).toLowerCase()
    const matches = (sub: Rec) =>
      (status === undefined || lower(sub.status) === status.toLowerCase()) &&
      (email === undefined || lower(sub.email) === email.toLowerCase())
    this.out.list(items.filter(matches), SUBSCRIPTION_VIEW)
    if (more)
      this.out.stderr.write('More subscriptions exist than this first page: add --all to fetch them all.\n')
  }
}
