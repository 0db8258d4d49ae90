import { BaseCommand } from '../../cli/base-command.js'
import { consentFlags, fieldFlags, outputFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { LINK_FIELDS } from '../../work/links/fields.js'
import { updateLink } from '../../work/links/update.js'
import { LINK_VIEW } from '../../work/links/view.js'

export default class LinksUpdate extends BaseCommand<typeof LinksUpdate> {
  static calls: readonly EndpointName[] = ['getLink', 'updateLink']
  static summary = 'Change a payment link'
  static description =
    'Fetches the link, applies the flags given and sends the whole link back (the service ' +
    'needs every required field on update). Fields without a flag keep their current value. ' +
    'A paid link is changed only once confirmed (--yes off a terminal).'

  static examples = [
    '<%= config.bin %> links update 65a1f0c2e4b0a1b2c3d4e5f6 --amount 30.00',
    '<%= config.bin %> links update 65a1f0c2e4b0a1b2c3d4e5f6 --title "Invoice 1042 (corrected)" --reference-2 Q3',
  ]

  static args = {
    id: idArg('Payment link id (_id), or its payment URL (…?id=ID).'),
  }
  static flags = { ...fieldFlags(LINK_FIELDS), yes: consentFlags('changed').yes, ...outputFlags }

  async run(): Promise<Result> {
    const link = await updateLink(
      { id: this.args.id, changes: LINK_FIELDS.fromFlags(this.flags) },
      this.context,
    )
    return shown.record(link, LINK_VIEW)
  }
}
