import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { openPaymentPage, paymentPage } from '../../work/links/page.js'

export default class LinksOpen extends BaseCommand<typeof LinksOpen> {
  static calls: readonly EndpointName[] = ['getLink']
  static summary = "Open a payment link's page in the browser"
  static description =
    'Prints the payment_url of the link on stdout and opens it in the browser: the BROWSER ' +
    "command when set (the URL is added as its last argument), else the system's opener. " +
    '--no-browser only prints it; --json prints {_id, payment_url}.'

  static examples = [
    '<%= config.bin %> links open 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> links open 65a1f0c2e4b0a1b2c3d4e5f6 --no-browser',
    'BROWSER=firefox <%= config.bin %> links open 65a1f0c2e4b0a1b2c3d4e5f6',
  ]

  static args = {
    id: idArg('Payment link id (_id), or its payment URL (…?id=ID).'),
  }
  static flags = {
    browser: Flags.boolean({
      description: 'Open the page in the browser (--no-browser: only print its URL).',
      allowNo: true,
      default: true,
    }),
  }

  async run(): Promise<Result> {
    const page = await paymentPage({ id: this.args.id }, this.context)
    await this.show(shown.text(page.payment_url, page))
    if (this.flags.browser) await openPaymentPage(page.payment_url, this.context)
    else this.context.warnIfPageUnserved(page.payment_url)
    return undefined
  }
}
