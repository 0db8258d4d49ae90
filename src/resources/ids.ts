/**
 * Ids as people paste them: with spaces around, in capitals (copied from a spreadsheet), or as
 * the payment URL from a customer's e-mail (`https://…/checkout/pay?id=ID`). Every command that
 * takes an id reads it through normalizeId, so `links get`, `subs cancel --from-file` and
 * `sandbox pay` all take the same forms.
 */

/** A web address: its id is in the `id` query parameter, as in every payment_url. */
const URL_START = /^[a-z][a-z0-9+.-]*:\/\//i

/** The service's ids are hexadecimal (24 digits); written in capitals they are the same id. */
const HEX = /^[0-9a-f]+$/i

/** Single-word first lines of an id list that name its column rather than being an id. */
export const ID_HEADERS = ['id', '_id', 'ids', 'subscription_id', 'payment_link_id', 'link_id']

/**
 * The id in `text`: trimmed; the `id` query parameter of a URL; hex digits lower-cased. A URL
 * without an `id` parameter is returned as it is (the caller says it is no id).
 */
export function normalizeId(text: string): string {
  let id = text.trim()
  if (URL_START.test(id)) {
    const fromUrl = idOfUrl(id)
    if (fromUrl === undefined) return id
    id = fromUrl.trim()
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

/** Why `text` (already normalised) cannot be an id, or undefined when it can be one. */
export function idProblem(id: string): string | undefined {
  if (id === '') return 'empty'
  if (URL_START.test(id)) return 'a URL without an id (a payment_url carries ?id=…)'
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
