import { PayError, usageError } from '../../errors.js'
import { whyNotWritten, writeQrImage } from '../../render/qr.js'
import { showInBrowser } from '../../runtime/browser.js'
import type { RunContext } from '../../runtime/context.js'
import { paymentUrlOf } from './view.js'

/** Where the customer pays for a link: `links open` and `links qr` print it, and `--json` gives it. */
export interface PaymentPage {
  _id: string
  payment_url: string
}

/** The payment page of link `id`, its address checked (nothing else goes to a browser or a QR code). */
export async function paymentPage(options: { id: string }, context: RunContext): Promise<PaymentPage> {
  const { api } = await context.api()
  const url = paymentUrlOf(await api.send('getLink', { id: options.id }))
  return { _id: options.id, payment_url: url }
}

/**
 * Opens a payment page in the browser (`links open`, `links create --open`), once what the page
 * is has been printed; says when nothing serves it (the sandbox ran inside this command).
 */
export async function openPaymentPage(url: string, context: RunContext): Promise<void> {
  context.warnIfPageUnserved(url)
  await showInBrowser(context.out, url, context.env)
}

/** `links qr --output FILE`: the payment page's address as a QR code in an image file. */
export async function writePaymentQr(
  options: { id: string; output: string; force?: boolean },
  context: RunContext,
): Promise<PaymentPage & { output: string }> {
  const page = await paymentPage(options, context)
  context.warnIfPageUnserved(page.payment_url)
  const file = options.output
  try {
    await writeQrImage(file, page.payment_url, { replace: options.force ?? false })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST')
      throw usageError(`--output ${file}: the file exists.`, 'Add --force to replace it.')
    throw new PayError(`--output ${file}: cannot write it: ${whyNotWritten(file, error)}.`, {
      kind: 'general',
    })
  }
  return { ...page, output: file }
}
