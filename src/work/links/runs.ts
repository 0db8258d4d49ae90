import { confirmRisk } from '../../bulk/consent.js'
import { deleteMany, LINK_REPORT } from '../../bulk/delete.js'
import { type IdFlags, idInput } from '../../bulk/ids.js'
import { PayError, usageError } from '../../errors.js'
import { formatAmount } from '../../render/format.js'
import { qrLines, whyNotWritten, writeQrImage } from '../../render/qr.js'
import { type Result, shown } from '../../render/result.js'
import { showInBrowser } from '../../runtime/browser.js'
import type { RunContext } from '../../runtime/context.js'
import { workflowOf } from '../../runtime/context.js'
import { waitFor } from '../../runtime/wait.js'
import type { Duration } from '../../shared/duration.js'
import type { FieldValues } from '../common/field-set.js'
import { walkList } from '../common/list-walk.js'
import { sortOrder } from '../common/sort.js'
import {
  checkAmountDigits,
  checkCurrencyChange,
  describeLink,
  LINK_FIELDS,
  LINK_VIEW,
  type LinkFilters,
  linkFilter,
  mergeLinkUpdate,
  paymentUrlOf,
} from './links.js'

/**
 * The work of the `links` commands, one function each: its options (the fields under the
 * service's names, the id, what was asked) and the run context (cli/context.ts). `pay mcp` calls
 * them as the commands do.
 */

/** `links create`: the fields given, the required ones asked for on a terminal; `open`: then the page in the browser. */
export async function createLink(
  options: { fields: FieldValues; idempotencyKey?: string; open?: boolean },
  context: RunContext,
): Promise<Result> {
  const fields = { ...options.fields }
  LINK_FIELDS.check(fields)
  // On a terminal, a missing key or a refused base URL is reported before any question.
  if (context.io.canPrompt) await context.api()
  await LINK_FIELDS.fillMissing(fields, context.io)
  checkAmountDigits(fields)
  const { api } = await context.api()
  const link = await api.send('createLink', {
    body: LINK_FIELDS.body(fields),
    idempotencyKey: options.idempotencyKey,
  })
  const open = async () => {
    context.warnIfPageUnserved(paymentUrlOf(link))
    await showInBrowser(context.out, paymentUrlOf(link), context.env)
    return undefined
  }
  return [shown.record(link, LINK_VIEW), options.open ? shown.later(open) : undefined]
}

/**
 * `links list`: the first page, or every page with --all, a filter or --sort, as much as the list
 * scope says; sorted by `sort` (`-FIELD`: descending).
 */
export async function listLinks(
  options: LinkFilters & { sort?: string },
  context: RunContext,
): Promise<Result> {
  const match = linkFilter(options, context.now())
  const order = sortOrder(options.sort, LINK_VIEW)
  const { api } = await context.api()
  const found = walkList(api.pages('listLinks'), match, order, context.listScope)
  return shown.list(found.batches, LINK_VIEW, found.outcome)
}

/**
 * `links update`: the link fetched, the changes merged in, the whole link sent back (PUT needs
 * every required field); a paid link only once confirmed.
 */
export async function updateLink(
  options: { id: string; changes: FieldValues },
  context: RunContext,
): Promise<Result> {
  const { id, changes } = options
  if (Object.keys(changes).length === 0) {
    throw usageError('Nothing to change.', `Give at least one of ${LINK_FIELDS.flagNames.join(', ')}.`)
  }
  LINK_FIELDS.check(changes)
  const { api } = await context.api()
  const current = await api.send('getLink', { id: id })
  const body = mergeLinkUpdate(current, changes)
  checkCurrencyChange(body, changes)
  if (changes.amount !== undefined || changes.currency !== undefined) checkAmountDigits(body)
  if (current.paid === true) {
    const paid = formatAmount(current.amount, current.currency)
    const warning = `Payment link ${id} is already paid (${paid}); changing it does not change what the customer paid.`
    await confirmRisk(
      warning,
      'Change the paid link anyway?',
      'change',
      context.consent,
      context.out,
      context.io,
    )
  }
  return shown.record(await api.send('updateLink', { id, body }), LINK_VIEW)
}

/** `links delete`: ids from arguments, a file or stdin, confirmed, then deleted (bulk/by-id.ts). */
export async function deleteLinks(
  options: IdFlags & { ids: string[]; concurrency: number },
  context: RunContext,
): Promise<Result> {
  const input = await idInput(options.ids, options, context.io, 'payment link')
  const { api, target } = await context.api()
  const deletion = {
    command: 'pay links delete',
    view: LINK_VIEW,
    remove: (id: string) => api.send('deleteLink', { id: id }),
    lookUp: { fetch: (id: string) => api.send('getLink', { id: id }), describe: describeLink },
    ...LINK_REPORT,
  }
  return deleteMany(deletion, { ...input, concurrency: options.concurrency, ...workflowOf(context, target) })
}

/** `links open`: the payment page's address printed, then opened in the browser unless `browser` is false. */
export async function openLink(
  options: { id: string; browser: boolean },
  context: RunContext,
): Promise<Result> {
  const { api } = await context.api()
  const url = paymentUrlOf(await api.send('getLink', { id: options.id }))
  return [
    shown.text(url, { _id: options.id, payment_url: url }),
    shown.later(async () => {
      context.warnIfPageUnserved(url)
      if (options.browser) await showInBrowser(context.out, url, context.env)
      return undefined
    }),
  ]
}

/** `links qr`: the payment page's address as a QR code on the terminal, or in an image file (`output`). */
export async function linkQr(
  options: { id: string; output?: string; force?: boolean },
  context: RunContext,
): Promise<Result> {
  const { id, output: file } = options
  const { api } = await context.api()
  const url = paymentUrlOf(await api.send('getLink', { id: id }))
  context.warnIfPageUnserved(url)
  if (file === undefined) {
    return shown.text([...qrLines(url, context.io.colour), url].join('\n'), { _id: id, payment_url: url })
  }
  try {
    await writeQrImage(file, url, { replace: options.force ?? false })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST')
      throw usageError(`--output ${file}: the file exists.`, 'Add --force to replace it.')
    throw new PayError(`--output ${file}: cannot write it: ${whyNotWritten(file, error)}.`, {
      kind: 'general',
    })
  }
  return shown.message(`Wrote the QR code of ${url} to ${file}.`, { _id: id, payment_url: url, output: file })
}

/** How long `links wait` waits when not told. */
export const WAIT_TIMEOUT: Duration = { months: 0, ms: 10 * 60 * 1000 }

/** `links wait`: the link looked at until it is paid (cli/wait.ts), then shown. */
export async function waitForPayment(
  options: { id: string; timeout?: Duration },
  context: RunContext,
): Promise<Result> {
  const { id } = options
  const { api } = await context.api()
  const link = await waitFor({
    what: `payment link ${id} to be paid`,
    short: `link ${id} to be paid`,
    look: () => api.send('getLink', { id: id }),
    done: (record) => record.paid === true,
    timeout: options.timeout ?? WAIT_TIMEOUT,
    io: context.io,
    out: context.out,
  })
  return shown.record(link, LINK_VIEW)
}
