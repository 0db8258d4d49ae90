/**
 * Ids as people paste them: with spaces around, in capitals (copied from a spreadsheet), in
 * quotes (from JSON output) or angle brackets, or as the payment URL from a customer's e-mail
 * (`https://…/checkout/pay?id=ID`, `<https://…>`). Every command that takes an id reads it
 * through normalizeId and idProblem, so `links get`, `subs cancel --from-file` and `sandbox pay`
 * all take the same forms and refuse the same text.
 */

/** A web address: its id is in the `id` query parameter, as in every payment_url. */
const URL_START = /^[a-z][a-z0-9+.-]*:\/\//i

/** The service's ids are hexadecimal (24 digits); written in capitals they are the same id. */
const HEX = /^[0-9a-f]+$/i

/** Single-word first lines of an id list that name its column rather than being an id. */
export const ID_HEADERS = ['id', '_id', 'ids', 'subscription_id', 'payment_link_id', 'link_id']

/**
 * The pairs a pasted id comes wrapped in: quotes from JSON output or a spreadsheet cell, curly
 * quotes from a document or an e-mail, angle brackets around a URL in an e-mail (`<https://…>`).
 */
const WRAPPERS: [string, string][] = [
  ['"', '"'],
  ["'", "'"],
  ['`', '`'],
  ['<', '>'],
  ['\u201c', '\u201d'],
  ['\u2018', '\u2019'],
  ['\u00ab', '\u00bb'],
]

/** `text` out of the pairs it is wrapped in (`"<ID>"` is ID), trimmed at each step. */
function unwrapped(text: string): string {
  let inner = text.trim()
  for (;;) {
    const pair = WRAPPERS.find(
      ([open, close]) => inner.length >= 2 && inner.startsWith(open) && inner.endsWith(close),
    )
    if (!pair) return inner
    inner = inner.slice(1, -1).trim()
  }
}

/**
 * The id in `text`: trimmed and out of the quotes or angle brackets it was pasted in; the `id`
 * query parameter of a URL; hex digits lower-cased. A URL without an `id` parameter is returned
 * as it is (the caller says it is no id).
 */
export function normalizeId(text: string): string {
  let id = unwrapped(text)
  if (URL_START.test(id)) {
    const fromUrl = idOfUrl(id)
    if (fromUrl === undefined) return id
    id = unwrapped(fromUrl)
  }
  return HEX.test(id) ? id.toLowerCase() : id
}

function idOfUrl(text: string): string | undefined {
  try {
    const url = new URL(text)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    return url.searchParams.get('id') ?? undefined
  } catch {
    return undefined
  }
}

/**
 * Why `id` (already normalised) cannot be an id, or undefined when it can be one: what no id the
 * service hands out holds, and what would change the request's path. The same rules for an id
 * argument (exit 2) and for an entry of a list of ids (reported `invalid`, never sent).
 */
export function idProblem(id: string): string | undefined {
  if (id === '') return 'empty'
  if (URL_START.test(id)) return 'a URL without an id (a payment_url carries ?id=…)'
  if (id === '.' || id === '..') return 'only dots'
  if (/\s/.test(id)) return 'it contains a space'
  if (/["'`\u2018\u2019\u201c\u201d\u00ab\u00bb]/.test(id)) return 'it contains a quote'
  if (/[<>]/.test(id)) return 'it contains an angle bracket'
  if (id.includes(',')) return 'it contains a comma (one id per line)'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(id)) return 'it contains a control character'
  return undefined
}

/** Whether a list's first line names its column (`id`, `_id`, `subscription_id`, …). */
export const isIdHeader = (line: string): boolean =>
  ID_HEADERS.includes(
    line
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .trim()
      .toLowerCase(),
  )
