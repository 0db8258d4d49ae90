/**
 * Where the customer is sent back to after a page of the sandbox: a record's `redirect_url`, with
 * what came of the visit in its query (`id` and `status` of a payment, `token` and `status` of an
 * activation). The payment transition (payment.ts) and the activation page (handlers/pages/) say
 * it alike.
 */

/** A `redirect_url` the customer may be sent to: an absolute http(s) URL; else undefined. */
export function returnAddress(redirectUrl: string | undefined): URL | undefined {
  if (redirectUrl === undefined) return undefined
  let url: URL
  try {
    url = new URL(redirectUrl)
  } catch {
    return undefined
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined
}

/**
 * `url` with `added` in its query: its own parameters are kept as written, in order, but those
 * named like one added (which would contradict it) are left out; the fragment is kept.
 */
export function withQuery(url: URL, added: Record<string, string>): string {
  const result = new URL(url.href)
  const names = new Set(Object.keys(added))
  const own = result.search
    .slice(1)
    .split('&')
    .filter((part) => {
      if (part === '') return false
      const rawName = part.split('=')[0].replace(/\+/g, ' ')
      let name: string
      try {
        name = decodeURIComponent(rawName)
      } catch {
        name = rawName
      }
      return !names.has(name)
    })
  result.search = [...own, new URLSearchParams(added).toString()].join('&')
  return result.href
}
