import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { showLink } from '../../work/links/get.js'
import { LINK_VIEW } from '../../work/links/view.js'

export default class LinksGet extends BaseCommand<typeof LinksGet> {
  static calls: readonly EndpointName[] = ['getLink']
  static summary = 'Show one payment link'
  static examples = [
    '<%= config.bin %> links get 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> links get 65a1f0c2e4b0a1b2c3d4e5f6 --json',
    '<%= config.bin %> links get 65a1f0c2e4b0a1b2c3d4e5f6 --columns payment_url',
  ]

  static args = {
    id: idArg('Payment link id (_id), or its payment URL (…?id=ID).'),
  }
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    return shown.record(await showLink({ id: this.args.id }, this.context), LINK_VIEW)
  }
}
