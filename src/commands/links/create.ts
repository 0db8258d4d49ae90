import type { LinkInput } from '../../api/types.js'
import { BaseCommand } from '../../cli/base-command.js'
import { createFlags, outputFlags } from '../../cli/flags.js'
import { checkAmountDigits, LINK_FIELDS, LINK_VIEW } from '../../resources/links.js'

export default class LinksCreate extends BaseCommand<typeof LinksCreate> {
  static summary = 'Create a payment link'
  static description =
    'Creates a one-off payment link and prints it, with the payment_url to send the customer. ' +
    'On a terminal, missing required flags (--email, --currency, --amount, --title) are asked for; ' +
    'elsewhere they must all be given.'

  static examples = [
    '<%= config.bin %> links create --email jane@example.com --currency EUR --amount 25.50 --title "Invoice 1042"',
    '<%= config.bin %> links create --email jane@example.com --currency EUR --amount 99 --title "Deposit" --reference ORDER-7 --send-email',
    '<%= config.bin %> -p sandbox links create --email test@example.com --currency USD --amount 10 --title Test --json',
  ]

  static flags = { ...LINK_FIELDS.flags, ...createFlags, ...outputFlags }

  async run(): Promise<void> {
    const fields = LINK_FIELDS.fromFlags(this.flags)
    LINK_FIELDS.check(fields)
    // On a terminal, a missing key or a refused base URL is reported before any question.
    const early = this.io.canPrompt ? await this.api() : undefined
    await LINK_FIELDS.fillMissing(fields, this.io)
    checkAmountDigits(fields)
    const { api } = early ?? (await this.api())
    const link = await api.createLink(fields as unknown as LinkInput, {
      idempotencyKey: this.flags['idempotency-key'],
    })
    this.out.record(link, LINK_VIEW)
  }
}
