import { Flags } from '@oclif/core'
import { csvReportHelp } from '../../bulk/help.js'
import { BaseCommand } from '../../cli/base-command.js'
import { createFlags, fieldFlags, fromCsvFlags, outputFlags } from '../../cli/flags.js'
import { usageError } from '../../errors.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { createLink } from '../../work/links/create.js'
import { LINK_FIELDS } from '../../work/links/fields.js'
import { createLinksFromCsvFile } from '../../work/links/from-csv.js'
import { openPaymentPage } from '../../work/links/page.js'
import { LINK_VIEW, paymentUrlOf } from '../../work/links/view.js'

export default class LinksCreate extends BaseCommand<typeof LinksCreate> {
  static calls: readonly EndpointName[] = ['createLink']
  static summary = 'Create a payment link'
  static description =
    'Creates a one-off payment link and prints it, with the payment_url to send the customer. ' +
    'On a terminal, missing required flags (--email, --currency, --amount, --title) are asked for; ' +
    'elsewhere they must all be given. --from-csv creates one link per row of a CSV file: every row ' +
    'is checked before anything is sent, the plan is confirmed, and --report/--resume make a run ' +
    'that stopped half-way safe to carry on (no row is ever created twice). The plan shows each row (up to 20); ' +
    'exit 3 when rows are invalid (nothing sent), 7 when some rows were not created or stay unknown.' +
    csvReportHelp('_id and payment_url of the link made', 'email, title, amount and currency')

  static examples = [
    '<%= config.bin %> links create --email jane@example.com --currency EUR --amount 25.50 --title "Invoice 1042"',
    '<%= config.bin %> links create --email jane@example.com --currency EUR --amount 99 --title "Deposit" --reference ORDER-7 --send-email',
    '<%= config.bin %> -p sandbox links create --email test@example.com --currency USD --amount 10 --title Test --json',
    '<%= config.bin %> links create --email jane@example.com --currency EUR --amount 25.50 --title "Invoice 1042" --open',
    '<%= config.bin %> links create --from-csv invoices.csv --report invoices-report.csv',
    '<%= config.bin %> links create --from-csv invoices.csv --resume invoices-report.csv',
  ]

  static flags = {
    ...fieldFlags(LINK_FIELDS),
    ...createFlags,
    open: Flags.boolean({
      description: 'Open the payment page in the browser once the link is created.',
      exclusive: ['from-csv'],
    }),
    ...fromCsvFlags('link', 'email,currency,amount,title,reference-2'),
    ...outputFlags,
  }

  async run(): Promise<Result> {
    const { flags } = this
    const fields = LINK_FIELDS.fromFlags(flags)
    if (flags['from-csv'] === undefined) {
      const link = await createLink({ fields, idempotencyKey: flags['idempotency-key'] }, this.context)
      if (!flags.open) return shown.record(link, LINK_VIEW)
      await this.show(shown.record(link, LINK_VIEW))
      await openPaymentPage(paymentUrlOf(link), this.context)
      return undefined
    }
    if (Object.keys(fields).length > 0 || flags['idempotency-key']) {
      throw usageError('--from-csv takes the fields from the file: give no field flags with it.')
    }
    return shown.bulk(await createLinksFromCsvFile({ ...flags, source: flags['from-csv'] }, this.context))
  }
}
