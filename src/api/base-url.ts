import { PayError } from '../errors.js'

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

export const isLoopback = (host: string) => LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host)

/** A base URL the key may be sent to: https anywhere, http only to this machine. */
export function checkBaseUrl(baseUrl: string): URL {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new PayError(`The base URL "${baseUrl}" is not a valid URL.`, {
      kind: 'usage',
      hint: 'Give it as https://host[/path] with --base-url, PAY_BASE_URL or `pay login --base-url`.',
    })
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new PayError(`The base URL "${url.origin}${url.pathname}…" carries a user, query or fragment.`, {
      kind: 'usage',
      hint: 'Give it as https://host[/path]: the API key is the only credential pay sends.',
    })
  }
  if (url.protocol === 'https:') return url
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url
  if (url.protocol === 'http:') {
    throw new PayError(`Refusing to send the API key over plain http to ${url.host}.`, {
      kind: 'usage',
      hint: 'Use an https:// base URL; http:// is allowed only for loopback addresses (127.0.0.1, localhost).',
    })
  }
  throw new PayError(`The base URL "${baseUrl}" must start with https:// (or http:// for loopback).`, {
    kind: 'usage',
  })
}

/**
 * An absolute URL for an API path under `base`, or a URL the service handed out (a next page),
 * only on the base URL's origin: the key is never sent elsewhere.
 */
export function urlUnder(base: string, origin: string, pathOrUrl: string): string {
  if (!/^https?:\/\//i.test(pathOrUrl)) return `${base}${pathOrUrl}`
  const url = new URL(pathOrUrl)
  if (url.origin !== origin) {
    throw new PayError(`The service pointed to ${url.origin}, outside ${origin}; not following it.`, {
      kind: 'unavailable',
      hint: 'The API key is only ever sent to the base URL of the profile.',
    })
  }
  return url.href
}

/** PATH of `pay api` as the transport takes it: a path under the base URL, or a URL on its origin. */
export function pathUnder(origin: string, path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    let url: URL
    try {
      url = new URL(path)
    } catch {
      throw new PayError(`"${path}" is not a valid URL.`, { kind: 'usage' })
    }
    if (url.origin !== origin) {
      throw new PayError(
        `Refusing to send the API key to ${url.origin}: pay sends it only to ${origin}, the profile's base URL.`,
        { kind: 'usage', hint: 'Give a path relative to the base URL, e.g. /payment-links.' },
      )
    }
    return url.href
  }
  return path.startsWith('/') ? path : `/${path}`
}
