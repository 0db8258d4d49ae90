import { Args } from '@oclif/core'
import { BaseCommand, outputFlags } from '../../base-command.js'
import { usageError } from '../../errors.js'
import { checkLink, linkFieldsFromFlags, linkFlags, mergeLinkUpdate } from '../../lib/link-fields.js'
import { LINK_VIEW } from '../../render/views.js'

export default class LinksUpdate extends BaseCommand<typeof LinksUpdate> {
  static summary = 'Change a payment link'
  static description =
    'Fetches the link, applies the flags given and sends the whole link back (the service ' +
    'needs every required field on update). Fields without a flag keep their current value.'

  static examples = [
    '<%= config.bin %> links update 65a1f0c2e4b0a1b2c3d4e5f6 --amount 30.00',
    '<%= config.bin %> links update 65a1f0c2e4b0a1b2c3d4e5f6 --title "Invoice 1042 (corrected)" --reference-2 Q3',
  ]

  static args = {
    id: Args.string({ description: 'Payment link id (_id).', required: true, ignoreStdin: true }),
  }
  static flags = { ...linkFlags, ...outputFlags }

  async run(): Promise<void> {
    const changes = linkFieldsFromFlags(this.flags)
    if (Object.keys(changes).length === 0) {
      throw usageError(
        'Nothing to change.',
        'Give at least one of --email, --currency, --amount, --title, --phone, ' +
          '--description, --redirect-url, --reference, --reference-2, --send-email.',
      )
    }
    checkLink(changes)
    const { api } = await this.api()
    const current = await api.getLink(this.args.id)
    const updated = await api.updateLink(this.args.id, mergeLinkUpdate(current, changes))
    this.out.record(updated, LINK_VIEW)
  }
}
