import { PayError } from '../errors.js'
import { randomUuid } from '../shared/crypto.js'
import { ENDPOINT_LIST } from '../shared/endpoints.js'
import type { Method } from '../shared/fields.js'
import type { Rec } from '../values.js'
import { pathUnder } from './base-url.js'
import { MAX_RESPONSE_BYTES } from './body.js'
import type { PayApi } from './client.js'
import { mayHaveHappened } from './failures.js'
import { walkPages } from './paging.js'
import { errorFromResponse, parseBody, readJson, readPage } from './reader.js'
import { carriesIdempotencyKey } from './retry.js'
import type { RawRequestOptions, RawResponse, Transport } from './transport.js'

/**
 * `pay api`'s requests: any method and path on the profile's origin, with the same key, deadline,
 * retries, redirect refusal and trace as every other; each answer whatever its status.
 */

/** What the service's collections are called in the journal, by their path: `payment-links` -> `payment link`. */
const RESOURCES: Record<string, string> = Object.fromEntries(
  ENDPOINT_LIST.filter((endpoint) => !endpoint.sandbox).map((endpoint) => [
    endpoint.path.split('/')[1],
    endpoint.noun,
  ]),
)

/** An answer to `pay api`: the response, its body when it is JSON, and the error its status means. */
export interface Answer {
  response: RawResponse
  /** The body, when it is JSON (`{value: null}` for a JSON null). */
  json?: { value: unknown }
  /** What the answer means as a failure: a status that is not 2xx, or a 2xx that is not JSON. */
  error?: PayError
}

/**
 * The most `pay api --paginate` holds, all its pages' answers together (it prints them as one
 * array at the end): twice what one answer may be. Past it the walk stops (exit 6): a hostile
 * server cannot make it hold unbounded memory with endless pages. (`--jsonl` list commands
 * print each page as it comes instead.)
 */
export const MAX_PAGINATED_BYTES = 2 * MAX_RESPONSE_BYTES

/** One page of `pay api --paginate`: its answer, and its items when it was a 2xx list. */
export interface RawPage extends Answer {
  items?: Rec[]
}

/**
 * Any request (`pay api`): PATH is relative to the base URL, or an absolute URL on its origin
 * (the key goes nowhere else). Same key, deadline, retries, redirect refusal and trace as every
 * other request; the answer comes back whatever its status, with the error that status means.
 * A change (any method but GET) is journaled; a POST or PATCH that may have been acted on
 * before it failed says so, with the Idempotency-Key to send it again under.
 */
export async function rawRequest(
  api: PayApi,
  method: Method,
  path: string,
  options: RawRequestOptions = {},
): Promise<Answer> {
  const { transport } = api
  const url = pathUnder(transport.origin, path)
  // An Idempotency-Key given among the headers is the one sent, journaled and named.
  const headers = { ...options.headers }
  let given = options.idempotencyKey
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== 'idempotency-key') continue
    given = headers[name]
    delete headers[name]
  }
  const key = carriesIdempotencyKey(method) ? (given ?? randomUuid()) : undefined
  const send = async (): Promise<Answer> => {
    const response = await transport.request(method, url, {
      ...options,
      headers: key === undefined && given !== undefined ? { ...headers, 'idempotency-key': given } : headers,
      idempotencyKey: key,
    })
    return answerOf(transport, response, key)
  }
  if (method === 'GET') return send()
  const pathname = new URL(transport.url(url)).pathname
  const { resource, id: recordId } = describePath(pathname, basePath(transport))
  try {
    return await api.change(
      { method, path: pathname, resource, id: recordId, idempotencyKey: key },
      async () => {
        const answer = await send()
        return { status: answer.response.status, result: answer, failure: answer.error?.kind }
      },
    )
  } catch (error) {
    throw transport.redactError(mayHaveHappened(error, key))
  }
}

/** Every page of a list `pay api --paginate` asks for: each answer as it came, until one is not a 2xx list. */
export async function* rawPages(
  api: PayApi,
  path: string,
  headers: Record<string, string> = {},
): AsyncGenerator<RawPage> {
  const { transport } = api
  let total = 0
  let pages = 0
  yield* walkPages<RawPage>(transport, pathUnder(transport.origin, path), async (url) => {
    const response = await transport.request('GET', url, { headers })
    total += Buffer.byteLength(response.text)
    pages += 1
    if (total > MAX_PAGINATED_BYTES) {
      throw new PayError(
        `The pages from ${transport.origin} add up to more than ${MAX_PAGINATED_BYTES / 1024 / 1024} MB ` +
          `after ${pages} pages: pay stopped following them.`,
        {
          kind: 'unavailable',
          hint: '`pay api --paginate` holds every page until the end; `pay links list --all --jsonl` prints each as it comes.',
        },
      )
    }
    const answer = answerOf(transport, response, undefined)
    if (answer.error) return { value: answer }
    const page = readPage(answer.json?.value, 'item')
    return { value: { ...answer, items: page.items }, next: page.next }
  })
}

/** A response as `pay api` shows it: its JSON, and the error its status means (none for a 2xx JSON or empty body). */
function answerOf(transport: Transport, response: RawResponse, key: string | undefined): Answer {
  const { status, text, contentType } = response
  const parsed = readJson(text)
  const json = parsed && { value: transport.redactValue(parsed.value, text) }
  if (status >= 200 && status < 300) {
    if (json !== undefined || text.trim() === '') return { response, json }
    try {
      parseBody(status, text, contentType)
    } catch (error) {
      return { response, error: transport.redactError(mayHaveHappened(error, key)) as PayError }
    }
  }
  const error = mayHaveHappened(errorFromResponse(status, text, contentType, transport.redact), key)
  return { response, json, error: transport.redactError(error) as PayError }
}

/** The base URL's path, which the journal leaves out of a request's resource. */
function basePath(transport: Transport): string {
  return new URL(transport.url('/')).pathname.replace(/\/$/, '')
}

/** The resource and record id a request path names, for the journal: `/payment-links/ID`. */
function describePath(pathname: string, base: string): { resource: string; id?: string } {
  const rest = pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : pathname
  const [collection = '', recordId] = rest.split('/').filter(Boolean).map(decodeSegment)
  return { resource: RESOURCES[collection] ?? (rest || '/'), id: recordId }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
