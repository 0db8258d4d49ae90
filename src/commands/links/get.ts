import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { LINK_VIEW } from '../../resources/links.js'

export default class LinksGet extends BaseCommand<typeof LinksGet> {
  static summary = 'Show one payment link'
  static examples = [
    '<%= config.bin %> links get 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> links get 65a1f0c2e4b0a1b2c3d4e5f6 --json',
    '<%= config.bin %> links get 65a1f0c2e4b0a1b2c3d4e5f6 --columns payment_url',
  ]

  static args = {
    id: Args.string({ description: 'Payment link id (_id).', required: true, ignoreStdin: true }),
  }
  static flags = { ...outputFlags }

  async run(): Promise<void> {
    const { api } = await this.api()
    this.out.record(await api.getLink(this.args.id), LINK_VIEW)
  }
}
