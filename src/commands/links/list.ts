import { Flags } from '@oclif/core'
import { BaseCommand, outputFlags } from '../../base-command.js'
import { plain, type Rec } from '../../render/format.js'
import { LINK_VIEW } from '../../render/views.js'

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

  static flags = {
    status: Flags.string({ description: 'Only links with this status (e.g. Active); case-insensitive.' }),
    paid: Flags.boolean({ description: 'Only paid links (--no-paid: only unpaid).', allowNo: true }),
    email: Flags.string({ description: 'Only links for this customer e-mail; case-insensitive.' }),
    reference: Flags.string({ description: 'Only links with this reference.' }),
    all: Flags.boolean({ description: 'Fetch every page, not only the first.' }),
    ...outputFlags,
  }

  async run(): Promise<void> {
    const { api } = await this.api()
    const { items, more } = await api.listLinks({ all: this.flags.all })
    const { status, paid, email, reference } = this.flags
    const lower = (value: unknown) => plain(value).toLowerCase()
    const matches = (link: Rec) =>
      (status === undefined || lower(link.status) === status.toLowerCase()) &&
      (paid === undefined || link.paid === paid) &&
      (email === undefined || lower(link.email) === email.toLowerCase()) &&
      (reference === undefined || link.reference === reference)
    this.out.list(items.filter(matches), LINK_VIEW)
    if (more)
      this.out.stderr.write('More payment links exist than this first page: add --all to fetch them all.\n')
  }
}
