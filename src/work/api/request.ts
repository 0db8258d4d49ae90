import fs from 'node:fs'
import { Flags } from '@oclif/core'
import type { PayApi } from '../../api/client.js'
import { rawPages, rawRequest } from '../../api/raw.js'
import { isReservedHeader, type RawResponse } from '../../api/transport.js'
import { type PayError, usageError } from '../../errors.js'
import type { RunContext } from '../../runtime/context.js'
import { METHODS, type Method } from '../../shared/fields.js'

/**
 * `pay api`'s flags as a request, as gh api reads them: -f/--raw-field key=value (a string),
 * -F/--field key=value (typed: true, false, null, numbers; @file or @- for a file's or stdin's
 * text), --input FILE|- (a raw JSON body), -H 'Name: value', -X (GET by default, POST when a body
 * is given). Fields nest with brackets (`a[b]=1`, `tags[]=x`). For a GET, or with --input, the
 * fields go into the query string.
 */

/** The flags of `pay api` (besides --jq and the global ones). */
export const API_FLAGS = {
  method: Flags.string({
    char: 'X',
    description: `HTTP method: ${METHODS.join(', ')} (default: GET, or POST when fields or --input are given).`,
  }),
  'raw-field': Flags.string({
    char: 'f',
    description: 'A string field, key=value (key[sub]=value nests, key[]=value adds to a list).',
    multiple: true,
    multipleNonGreedy: true,
  }),
  field: Flags.string({
    char: 'F',
    description: 'A typed field, key=value: true, false, null and numbers as JSON; @file or @- reads text.',
    multiple: true,
    multipleNonGreedy: true,
  }),
  input: Flags.string({ description: 'A file holding the JSON body to send as it is; - for stdin.' }),
  header: Flags.string({
    char: 'H',
    description: "An extra header, 'Name: value' (never Authorization).",
    multiple: true,
    multipleNonGreedy: true,
  }),
  include: Flags.boolean({
    char: 'i',
    description: 'Print the status line and headers of the answer on stderr.',
  }),
  paginate: Flags.boolean({
    description: 'Follow next_page_url and print the items of every page as one array.',
  }),
}

export interface ApiRequestFlags {
  path: string
  method?: string
  rawFields?: string[]
  fields?: string[]
  headers?: string[]
  input?: string
  paginate?: boolean
}

export interface ApiRequest {
  method: Method
  path: string
  /** JSON text, sent exactly (numbers as typed). */
  body?: string
  headers: Record<string, string>
}

/** Where file and stdin contents come from. */
export interface Sources {
  readStdin(): Promise<string>
}

/** A number as JSON writes one: kept as typed, never through a float (`25.50` stays `25.50`). */
class JsonNumber {
  constructor(readonly text: string) {}
}

type Value = string | boolean | null | JsonNumber | Value[] | { [key: string]: Value }

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/

export async function apiRequest(flags: ApiRequestFlags, sources: Sources): Promise<ApiRequest> {
  let stdinTaken = false
  const readSource = async (name: string, what: string): Promise<string> => {
    if (name === '-') {
      if (stdinTaken) throw usageError(`${what}: stdin can be read only once.`)
      stdinTaken = true
      return sources.readStdin()
    }
    try {
      return fs.readFileSync(name, 'utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : code
      throw usageError(`${what}: cannot read ${name} (${reason}).`)
    }
  }

  const entries: [string, Value][] = []
  for (const field of flags.rawFields ?? []) {
    const [key, value] = split(field, '-f')
    entries.push([key, value])
  }
  for (const field of flags.fields ?? []) {
    const [key, value] = split(field, '-F')
    entries.push([key, await typed(value, (name) => readSource(name, `-F ${key}`))])
  }

  let body: string | undefined
  if (flags.input !== undefined) {
    const text = await readSource(flags.input, '--input')
    if (text.trim() !== '') {
      try {
        JSON.parse(text)
      } catch (error) {
        throw usageError(
          `--input ${flags.input === '-' ? '(stdin)' : flags.input} is not JSON: ${(error as Error).message}.`,
          'The body is sent exactly as given; it must be one JSON value.',
        )
      }
      body = text
    }
  }

  const method = methodOf(flags.method, entries.length > 0 || flags.input !== undefined)
  if (flags.paginate && method !== 'GET') {
    throw usageError(`--paginate follows the pages of a GET, not a ${method}.`)
  }
  let path = flags.path
  if (entries.length > 0 && (method === 'GET' || flags.input !== undefined)) {
    path = withQuery(path, entries)
  } else if (entries.length > 0) {
    body = serialize(nest(entries))
  }
  return { method, path, body, headers: headersOf(flags.headers ?? []) }
}

function methodOf(given: string | undefined, hasBody: boolean): Method {
  if (given === undefined) return hasBody ? 'POST' : 'GET'
  const method = given.toUpperCase() as Method
  if (!METHODS.includes(method)) {
    throw usageError(`-X ${given}: pay api sends ${METHODS.join(', ')}.`)
  }
  return method
}

function split(field: string, flag: string): [string, string] {
  const at = field.indexOf('=')
  if (at <= 0) throw usageError(`${flag} ${field}: expected key=value.`)
  return [field.slice(0, at), field.slice(at + 1)]
}

/** An -F value: true/false/null, a number kept as typed, @file or @- for text, else the string. */
async function typed(value: string, read: (name: string) => Promise<string>): Promise<Value> {
  if (value === 'true') return true
  if (value === 'false') return false
  if (value === 'null') return null
  if (JSON_NUMBER.test(value)) return new JsonNumber(value)
  if (value.startsWith('@')) return read(value.slice(1))
  return value
}

/** `a[b][]` as its parts: `a`, `b`, `` (a list's next item, last only). */
function keyPath(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)
  const parts = match ? [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])] : []
  if (parts.length === 0 || parts.slice(0, -1).includes('')) {
    throw usageError(`"${key}" is not a field name: use name, name[key] or name[] (a list's next item).`)
  }
  return parts
}

/** The fields as one object: `a[b]=1` nests, `a[]=x -f a[]=y` makes a list. */
function nest(entries: [string, Value][]): { [key: string]: Value } {
  const root: { [key: string]: Value } = {}
  for (const [key, value] of entries) {
    const parts = keyPath(key)
    const listItem = parts.at(-1) === ''
    const name = listItem ? parts.at(-2)! : parts.at(-1)!
    let container = root
    for (const part of parts.slice(0, listItem ? -2 : -1)) {
      const existing = container[part]
      if (existing === undefined) container[part] = {}
      else if (!isObject(existing))
        throw usageError(`"${key}": ${part} is given as a value and as an object.`)
      container = container[part] as { [key: string]: Value }
    }
    const existing = container[name]
    if (listItem) {
      if (existing === undefined) container[name] = [value]
      else if (Array.isArray(existing)) existing.push(value)
      else throw usageError(`"${key}": ${name} is given as a list and as something else.`)
    } else if (existing !== undefined) {
      throw usageError(`"${key}" is given twice.`)
    } else {
      container[name] = value
    }
  }
  return root
}

const isObject = (value: Value): value is { [key: string]: Value } =>
  isContainer(value) && !Array.isArray(value)

const isContainer = (value: Value): value is Value[] | { [key: string]: Value } =>
  typeof value === 'object' && value !== null && !(value instanceof JsonNumber)

/** JSON text of a body, numbers exactly as typed. */
function serialize(value: Value): string {
  if (value instanceof JsonNumber) return value.text
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${serialize(item)}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** The fields in the query string, keys as given (`tags[]=a` too), values as text. */
function withQuery(path: string, entries: [string, Value][]): string {
  const query = new URLSearchParams()
  for (const [key, value] of entries) {
    query.append(key, value instanceof JsonNumber ? value.text : value === null ? '' : String(value))
  }
  return `${path}${path.includes('?') ? '&' : '?'}${query}`
}

/** -H 'Name: value' lines as headers; never Authorization (the profile's key is the only one sent). */
function headersOf(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const at = line.indexOf(':')
    const name = at === -1 ? '' : line.slice(0, at).trim()
    const value = at === -1 ? '' : line.slice(at + 1).trim()
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw usageError(`-H ${JSON.stringify(line)}: expected 'Name: value'.`)
    }
    if (name.toLowerCase() === 'authorization' || name.toLowerCase() === 'proxy-authorization') {
      throw usageError(
        `-H ${name}: pay api sends the profile's key as Authorization itself, and no other.`,
        'Choose the key with --profile or PAY_API_KEY.',
      )
    }
    if (isReservedHeader(name)) throw usageError(`-H ${name}: pay sets this header itself.`)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a header value holds no control characters
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
      throw usageError(`-H ${name}: the value holds a control character.`)
    }
    headers[name] = value
  }
  return headers
}

/**
 * What `pay api` got: each answer's response (its head, for -i), the body as it came (with
 * --paginate every page's items as one array), and the error a failed status means, to be
 * thrown once its body is shown (its exit code is the status's).
 */
export interface ApiOutcome {
  responses: RawResponse[]
  body?: { value: unknown }
  error?: PayError
}

/** Sends `pay api`'s request; with --paginate, each page of a list until the last or a failure. */
export async function callApi(
  api: PayApi,
  request: ApiRequest,
  options: { paginate: boolean },
): Promise<ApiOutcome> {
  if (options.paginate) {
    const responses: RawResponse[] = []
    const items: unknown[] = []
    for await (const page of rawPages(api, request.path, request.headers)) {
      responses.push(page.response)
      if (page.error) return { responses, body: page.json, error: page.error }
      items.push(...(page.items ?? []))
    }
    return { responses, body: { value: items } }
  }
  const answer = await rawRequest(api, request.method, request.path, {
    body: request.body,
    headers: request.headers,
  })
  return { responses: [answer.response], body: answer.json, error: answer.error }
}

/** `pay api`: the request the flags describe, sent with the run's client (context.ts), and its answer. */
export async function sendApiRequest(
  options: ApiRequestFlags & { paginate: boolean },
  context: RunContext,
): Promise<ApiOutcome> {
  const request = await apiRequest(options, context.io)
  const { api } = await context.api()
  return callApi(api, request, { paginate: options.paginate })
}
