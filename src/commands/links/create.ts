import { Flags } from '@oclif/core'
import type { LinkInput } from '../../api/types.js'
import { createLinksFromCsv, readCsvInput } from '../../bulk/create.js'
import { CSV_REPORT_HELP } from '../../bulk/help.js'
import { reportOptions } from '../../bulk/report.js'
import { BaseCommand } from '../../cli/base-command.js'
import { showInBrowser } from '../../cli/browser.js'
import { createFlags, fromCsvFlags, outputFlags } from '../../cli/flags.js'
import { usageError } from '../../errors.js'
import { type Result, shown } from '../../render/result.js'
import { checkAmountDigits, LINK_FIELDS, LINK_VIEW, paymentUrlOf } from '../../resources/links.js'

export default class LinksCreate extends BaseCommand<typeof LinksCreate> {
  static summary = 'Create a payment link'
  static description =
    'Creates a one-off payment link and prints it, with the payment_url to send the customer. ' +
    'On a terminal, missing required flags (--email, --currency, --amount, --title) are asked for; ' +
    'elsewhere they must all be given. --from-csv creates one link per row of a CSV file: every row ' +
    'is checked before anything is sent, the plan is confirmed, and --report/--resume make a run ' +
    'that stopped half-way safe to carry on (no row is ever created twice). The plan shows each row (up to 20); ' +
    'exit 3 when rows are invalid (nothing sent), 7 when some rows were not created or stay unknown.' +
    CSV_REPORT_HELP

  static examples = [
    '<%= config.bin %> links create --email jane@example.com --currency EUR --amount 25.50 --title "Invoice 1042"',
    '<%= config.bin %> links create --email jane@example.com --currency EUR --amount 99 --title "Deposit" --reference ORDER-7 --send-email',
    '<%= config.bin %> -p sandbox links create --email test@example.com --currency USD --amount 10 --title Test --json',
    '<%= config.bin %> links create --email jane@example.com --currency EUR --amount 25.50 --title "Invoice 1042" --open',
    '<%= config.bin %> links create --from-csv invoices.csv --report invoices-report.csv',
    '<%= config.bin %> links create --from-csv invoices.csv --resume invoices-report.csv',
  ]

  static flags = {
    ...LINK_FIELDS.flags,
    ...createFlags,
    open: Flags.boolean({
      description: 'Open the payment page in the browser once the link is created.',
      exclusive: ['from-csv'],
    }),
    ...fromCsvFlags,
    ...outputFlags,
  }

  async run(): Promise<Result> {
    if (this.flags['from-csv'] !== undefined) return this.fromCsv(this.flags['from-csv'])
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
    const open = async () => {
      this.warnIfPageUnserved(paymentUrlOf(link))
      await showInBrowser(this.out, paymentUrlOf(link))
      return undefined
    }
    return [shown.record(link, LINK_VIEW), this.flags.open ? shown.later(open) : undefined]
  }

  private async fromCsv(source: string): Promise<Result> {
    if (Object.keys(LINK_FIELDS.fromFlags(this.flags)).length > 0 || this.flags['idempotency-key']) {
      throw usageError('--from-csv takes the fields from the file: give no field flags with it.')
    }
    const input = await readCsvInput(source, this.io)
    const { api, target } = await this.api()
    return createLinksFromCsv(api, {
      ...input,
      concurrency: this.flags.concurrency,
      skipInvalid: this.flags['skip-invalid'],
      retryUnknown: this.flags['retry-unknown'],
      ...reportOptions(this.flags),
      ...this.workflow(target),
    })
  }
}
