import { confirmRisk } from '../../bulk/consent.js'
import { BaseCommand } from '../../cli/base-command.js'
import { consentFlags, outputFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { usageError } from '../../errors.js'
import { formatAmount } from '../../render/format.js'
import { type Result, shown } from '../../render/result.js'
import {
  checkAmountDigits,
  checkCurrencyChange,
  LINK_FIELDS,
  LINK_VIEW,
  mergeLinkUpdate,
} from '../../resources/links.js'

export default class LinksUpdate extends BaseCommand<typeof LinksUpdate> {
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
  static flags = { ...LINK_FIELDS.flags, yes: consentFlags('changed').yes, ...outputFlags }

  async run(): Promise<Result> {
    const changes = LINK_FIELDS.fromFlags(this.flags)
    if (Object.keys(changes).length === 0) {
      throw usageError('Nothing to change.', `Give at least one of ${LINK_FIELDS.flagNames.join(', ')}.`)
    }
    LINK_FIELDS.check(changes)
    const { api } = await this.api()
    const current = await api.getLink(this.args.id)
    const body = mergeLinkUpdate(current, changes)
    checkCurrencyChange(body, changes)
    if (changes.amount !== undefined || changes.currency !== undefined) checkAmountDigits(body)
    if (current.paid === true) {
      const paid = formatAmount(current.amount, current.currency)
      const warning = `Payment link ${this.args.id} is already paid (${paid}); changing it does not change what the customer paid.`
      await confirmRisk(warning, 'Change the paid link anyway?', 'change', this.flags, this.out, this.io)
    }
    const updated = await api.updateLink(this.args.id, body)
    return shown.record(updated, LINK_VIEW)
  }
}
