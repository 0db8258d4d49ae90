import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { needs } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { usageError } from '../../errors.js'
import { qrImageType, qrLines } from '../../render/qr.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { paymentPage, writePaymentQr } from '../../work/links/page.js'

export default class LinksQr extends BaseCommand<typeof LinksQr> {
  static calls: readonly EndpointName[] = ['getLink']
  static summary = "A payment link's page as a QR code"
  static description =
    'Draws the payment_url of the link as a QR code on the terminal, for the customer to scan, ' +
    'with the URL under it; --output writes a PNG or SVG image instead (an existing file is ' +
    'replaced only with --force). --json prints {_id, payment_url, output} and draws nothing.'

  static examples = [
    '<%= config.bin %> links qr 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> links qr 65a1f0c2e4b0a1b2c3d4e5f6 --output invoice-1042.png',
  ]

  static args = {
    id: idArg('Payment link id (_id), or its payment URL (…?id=ID).'),
  }
  static flags = {
    output: Flags.string({
      char: 'o',
      description: 'Write the QR code to this image file (.png or .svg) instead of the terminal.',
      parse: async (file) => {
        if (!qrImageType(file)) throw usageError(`${file} is not a .png or .svg file name.`)
        return file
      },
    }),
    force: Flags.boolean({ description: 'Replace the --output file if it exists.', ...needs('output') }),
  }

  async run(): Promise<Result> {
    const { id } = this.args
    const { output, force } = this.flags
    if (output !== undefined) {
      const written = await writePaymentQr({ id, output, force }, this.context)
      return shown.message(`Wrote the QR code of ${written.payment_url} to ${output}.`, written)
    }
    const page = await paymentPage({ id }, this.context)
    this.context.warnIfPageUnserved(page.payment_url)
    const lines = [...qrLines(page.payment_url, this.context.io.colour), page.payment_url]
    return shown.text(lines.join('\n'), page)
  }
}
