import { PayError } from '../errors.js'
import type { Transport } from './transport.js'

/** A next_page_url against the page it came from; one that is no URL at all is an unexpected answer. */
function resolveNext(next: string, page: string): string {
  try {
    return new URL(next, page).href
  } catch {
    throw new PayError('Unexpected answer from the service: a next_page_url that is not a URL.', {
      kind: 'unavailable',
      hint: 'Run again with --debug to see the exchange.',
    })
  }
}

/**
 * Every page of a list, one request each, as they arrive: next_page_url is resolved against
 * the page it came from (only when the next page is asked for), and the transport refuses one
 * on another origin (the key never goes there). A page seen before ends the walk.
 */
export async function* walkPages<T>(
  transport: Transport,
  path: string,
  read: (url: string) => Promise<{ value: T; next?: string }>,
): AsyncGenerator<T> {
  const seen = new Set<string>()
  let url: string | undefined = transport.url(path)
  while (url !== undefined) {
    seen.add(url)
    const { value, next } = await read(url)
    yield value
    if (next === undefined) return
    const resolved: string = transport.url(resolveNext(next, url))
    url = seen.has(resolved) ? undefined : resolved
  }
}
