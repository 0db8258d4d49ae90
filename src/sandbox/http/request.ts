/**
 * Reading a request: its path, method, JSON body and Idempotency-Key, and its path as the request
 * log shows it.
 */
import type http from 'node:http'
import { holdsSecret } from '../../shared/key-forms.js'
import { MAX_BODY_BYTES } from '../constants.js'
import { Refusal } from '../domain/answers.js'
import type { RequestBody } from '../domain/rules.js'
import { readCapped } from '../handlers/body.js'

/**
 * How deep a JSON body may nest. The API's bodies are flat objects; a deeper one is refused once
 * parsed (JSON.parse itself takes any depth), before anything walks it (the Idempotency-Key's
 * fingerprint would run out of stack).
 */
export const MAX_JSON_DEPTH = 64

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 0x5c)
        i++ // a backslash: the next character is escaped
      else if (char === 0x22) inString = false
    } else if (char === 0x22) inString = true
    else if (char === 0x5b || char === 0x7b) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (char === 0x5d || char === 0x7d) depth--
  }
  return deepest
}

/** Query parameters whose values the request log shows: paging, and a link's id (the payment page). */
const LOGGED_PARAMETERS = new Set(['page', 'per_page', 'id', 'test'])

const REDACTED = '[REDACTED]'

/**
 * The path and query of a request as the request log shows them: a query value is shown only for
 * the parameters in LOGGED_PARAMETERS, the token of an activation page never, and any part that
 * holds one of the sandbox's API keys (a key pasted in a URL) is replaced as a whole.
 */
export function loggedPath(rawUrl: string, keys: readonly string[]): string {
  // In any form: percent-encoded in part or whole, once or twice over (src/shared/key-forms.ts).
  const holdsKey = (text: string) => holdsSecret(text, keys)
  const queryStart = rawUrl.indexOf('?')
  const rawPath = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart)
  const segments = rawPath.split('/').map((segment, i, all) => {
    if (holdsKey(segment)) return REDACTED
    // /checkout/tokens/<token>/activate: the token activates the customer's card.
    if (i === 3 && all[1] === 'checkout' && all[2] === 'tokens' && segment !== '') return REDACTED
    return segment
  })
  if (queryStart === -1) return segments.join('/')
  const query = rawUrl
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals === -1 ? pair : pair.slice(0, equals)
      if (holdsKey(name)) return REDACTED
      if (equals === -1) return name
      const value = pair.slice(equals + 1)
      let decodedName = name
      try {
        decodedName = decodeURIComponent(name)
      } catch {}
      return LOGGED_PARAMETERS.has(decodedName) && !holdsKey(value) ? pair : `${name}=${REDACTED}`
    })
  return `${segments.join('/')}?${query.join('&')}`
}

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0].trim().toLowerCase()
  return mediaType === 'application/json' || mediaType.endsWith('+json')
}

/** Reads the body as a JSON object; no body at all counts as `{}`. */
export async function readJsonBody(request: http.IncomingMessage): Promise<RequestBody> {
  const contentType = request.headers['content-type']
  if (contentType !== undefined && !isJsonMediaType(contentType)) {
    throw new Refusal(415, 'The request body must be JSON, sent with Content-Type: application/json.')
  }
  const tooLarge = () =>
    new Refusal(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`, {}, { Connection: 'close' })
  const text = (await readCapped(request, MAX_BODY_BYTES, tooLarge)).toString('utf8').replace(/^\uFEFF/, '')
  if (text.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new Refusal(400, 'Malformed JSON body.')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Refusal(400, 'The JSON body must be an object.')
  }
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new Refusal(400, `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`)
  }
  return parsed as RequestBody
}

export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** The Idempotency-Key header of a request; none when absent or blank. */
export function idempotencyKeyOf(request: http.IncomingMessage): string | undefined {
  const value = request.headers['idempotency-key']
  const key = (Array.isArray(value) ? value[0] : value)?.trim()
  return key ? key : undefined
}

/** The path of a request URL: no query, no trailing slash. */
export function pathOf(rawUrl: string): string {
  const queryStart = rawUrl.indexOf('?')
  const rawPath = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart)
  return rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath
}

/**
 * A request's path without the `/api` it may come under: the service's base URL is
 * `https://<host>/api/` (its shop plugins append their routes to it), so the sandbox serves every
 * route there too, with the same answers, and takes a base URL with or without `/api`. The
 * customer pages alone are never under it: their addresses are the sandbox's own
 * (`/checkout/pay?id=…`), and `/api/checkout/…` is a path the API does not know.
 */
export function underApi(path: string): { path: string; base: '' | '/api' } {
  const match = /^\/api(\/.*)?$/.exec(path)
  const rest = match?.[1] ?? '/'
  if (!match || /^\/checkout(?:\/|$)/.test(rest)) return { path, base: '' }
  return { path: rest, base: '/api' }
}

/** HEAD is answered as GET. */
export const methodOf = (request: http.IncomingMessage) =>
  request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET')
