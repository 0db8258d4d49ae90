import { createHmac } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/http/server.js'
import { ROOT } from '../../helpers/cli.js'
import { type Receiver, startReceiver } from '../../helpers/receiver.js'
import { clientFor, KEY_A, tempDir } from '../../helpers/sandbox.js'

/**
 * The service's official shop plugins against the sandbox, with only the host changed: each
 * plugin's requests replayed exactly as it sends them, with the JSON types it sends (recorded
 * under test/fixtures/plugins/, written from what the plugins do, not copied from their code), to
 * `<sandbox>/api/`; every field each plugin reads from each answer there; a payment failed, left
 * pending, then paid; each notification checked as the plugin checks it, by this test's own
 * reading of the plugins (an oracle independent of the sandbox's signing: sanitised and trimmed
 * values for WooCommerce and Gravity Forms, raw for GiveWP, PHP's string forms, HMAC-SHA256 of the
 * key and the values run together); and the return to `redirect_url` holding what the plugin reads
 * there, its own parameters kept as written.
 */

const ACCOUNT = { email: 'merchant@example.com', password: 'a  password with %20 and <b>' }
const FIXTURES = path.join(ROOT, 'test/fixtures/plugins')

type Json = Record<string, unknown>

interface Request {
  step: string
  method: string
  path: string
  auth: 'none' | 'token' | 'key'
  body?: Json
  reads?: Record<string, 'string' | 'any' | 'array'>
  status?: number
  noErrors?: boolean
  forEach?: boolean
  keep?: 'link'
  absent?: string[]
  expect?: Record<string, unknown>
}

interface Fixture {
  plugin: string
  version: string
  requests: Request[]
  refused?: { why: string; body: Json; errors: Record<string, string[]> }[]
  notification: {
    url: string
    referenceTwo: string
    reference: string
    requires: string[]
    hash: 'sanitised' | 'raw' | 'none'
  }
  return: { reads: string[]; own: Record<string, string> }
}

const fixtures = fs
  .readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .map((name) => [name, JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Fixture] as const)

// --- The plugins' checks, as this test reads them --------------------------------------------

/** PHP's string conversion of a JSON value, as `$text .= $value` makes it. */
function phpString(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === true) return '1'
  if (value === false || value === null || value === undefined) return ''
  if (typeof value === 'number') return Number.isInteger(value) ? value.toFixed(0) : String(value)
  return 'Array'
}

/** WordPress's sanitize_text_field, then trim: what WooCommerce and Gravity Forms hash of the required keys. */
function sanitized(value: unknown): string {
  let text = phpString(value)
  if (text.includes('<')) text = text.replace(/<[^>]*>?/g, '')
  text = text.replace(/%[a-f0-9]{2}/gi, '')
  text = text.replace(/[\r\n\t ]+/g, ' ')
  return text.trim()
}

/** The plugins' verify_hash over `data` (its `hash` left out), each required key's value as the plugin reads it. */
function pluginHashHolds(data: Json, key: string, how: 'sanitised' | 'raw', requires: string[]): boolean {
  const read: Json = { ...data }
  if (how === 'sanitised') for (const name of requires) read[name] = sanitized(data[name])
  const given = read.hash
  delete read.hash
  const text = Object.values(read).map(phpString).join('')
  // The plugins compare with PHP's loose ==: for two hex digests, the same as ===.
  return (
    createHmac('sha256', key)
      .update(key + text)
      .digest('hex') === given
  )
}

// --- Replaying --------------------------------------------------------------------------------

/** The values at a path of the plugin's reading (`data[].integration.id`): one per array element. */
function valuesAt(body: unknown, dotted: string): unknown[] {
  let values: unknown[] = [body]
  for (const part of dotted.split('.')) {
    const name = part.replace(/\[\]$/, '')
    values = values.map((value) => (value as Json | undefined)?.[name])
    if (part.endsWith('[]')) values = values.flatMap((value) => (Array.isArray(value) ? value : [undefined]))
  }
  return values
}

const holds = (value: unknown, type: string) =>
  type === 'string'
    ? typeof value === 'string' && value !== ''
    : type === 'array'
      ? Array.isArray(value)
      : value !== undefined && value !== null

/** `$SITE`, `$EMAIL`… in text and bodies, replaced. */
function filled<T>(value: T, vars: Record<string, string>): T {
  return JSON.parse(
    JSON.stringify(value).replace(/\$([A-Z]+)/g, (whole, name: string) =>
      name in vars ? vars[name] : whole,
    ),
  )
}

async function waitFor<T>(what: () => T | undefined, label: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const found = what()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`never came: ${label}`)
}

describe.each(fixtures)('%s: the plugin against the sandbox, only the host changed', (_file, fixture) => {
  let sandbox: RunningSandbox
  let receiver: Receiver
  let api: string
  const vars: Record<string, string> = { EMAIL: ACCOUNT.email, PASSWORD: ACCOUNT.password }
  const answers: { step: string; status: number; body: Json }[] = []

  beforeAll(async () => {
    sandbox = await startSandbox({ dir: tempDir('pay-plugins-'), keys: [KEY_A], port: 0, account: ACCOUNT })
    receiver = await startReceiver(200)
    api = `${sandbox.baseUrl}/api/`
    vars.SITE = receiver.origin
  })
  afterAll(async () => {
    await sandbox?.close()
    await receiver?.close()
  })

  /** One request as the plugin sends it: its headers, its body's bytes as JSON, the path after `/api/`. */
  async function send(request: Request, route: string): Promise<{ status: number; body: Json }> {
    const credential = request.auth === 'token' ? vars.TOKEN : request.auth === 'key' ? vars.KEY : undefined
    const response = await fetch(`${api}${route}`, {
      method: request.method,
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        ...(credential ? { Authorization: `Bearer ${credential}` } : {}),
      },
      body: request.body === undefined ? undefined : JSON.stringify(filled(request.body, vars)),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : {} }
  }

  it('answers each request with what the plugin reads, and registers its webhook as the sandbox’s endpoint', async () => {
    let listed: string[] = []
    for (const request of fixture.requests) {
      const route = filled(request.path, vars)
      const routes = request.forEach ? listed.map((id) => route.replace('$EACH', id)) : [route]
      for (const each of routes) {
        const { status, body } = await send(request, each)
        answers.push({ step: request.step, status, body })
        expect([request.step, status]).toEqual([request.step, request.status ?? 200])
        if (request.noErrors) expect([request.step, body.errors ?? null]).toEqual([request.step, null])
        for (const [read, type] of Object.entries(request.reads ?? {})) {
          const values = valuesAt(body, read)
          expect([request.step, read, values.length > 0 && values.every((v) => holds(v, type))]).toEqual([
            request.step,
            read,
            true,
          ])
        }
        for (const absent of request.absent ?? [])
          expect([request.step, valuesAt(body, absent)]).toEqual([request.step, [undefined]])
        for (const [at, value] of Object.entries(request.expect ?? {}))
          expect([request.step, valuesAt(body, at)]).toEqual([request.step, [value]])
        // What the plugin keeps of each answer for its next requests.
        if (request.step === 'sign in') vars.TOKEN = String(valuesAt(body, 'data.token')[0])
        if (request.path === 'approved-businesses') {
          const [business] = body.data as Json[]
          const integration = business.integration as Json
          vars.BUSINESS = String(business.id)
          vars.INTEGRATION = String(integration.id)
          vars.KEY = String(integration.api_key)
          vars.SIGNATURE = String(integration.signature_key)
        }
        if (request.method === 'GET' && request.path.endsWith('webhook-events'))
          listed = (valuesAt(body, 'data.data[]._id') as string[]).filter(Boolean)
        if (request.method === 'POST' && request.path.endsWith('webhook-events'))
          vars.EVENT = String(valuesAt(body, 'data._id')[0])
        if (request.keep === 'link') vars.LINK = String(valuesAt(body, 'data._id')[0])
      }
    }
    // The keys the plugin stores are the business's own; its one webhook is the sandbox's endpoint.
    expect(vars.KEY).toBe(KEY_A)
    expect(vars.SIGNATURE).toBe(sandbox.webhooks.signatureKeys[0])
    const url = filled(fixture.notification.url, vars)
    const endpoints = (await clientFor(sandbox.baseUrl).call('GET', '/_sandbox/webhooks')).json.data.endpoints
    expect(endpoints.map((e: Json) => [e.url, e.enabled])).toEqual([[url, true]])
  })

  it('refuses what the plugin sends that the service refuses too, in the service’s 422', async () => {
    for (const refused of fixture.refused ?? []) {
      const answer = await send(
        { step: 'refused', method: 'POST', path: 'payment-links', auth: 'key', body: refused.body },
        'payment-links',
      )
      expect([refused.why, answer.status, answer.body]).toEqual([
        refused.why,
        422,
        { message: 'The given data was invalid.', errors: refused.errors },
      ])
    }
  })

  it('fails, leaves pending, then pays: each notified as the plugin checks it, each return holding what it reads', async () => {
    const key = clientFor(sandbox.baseUrl)
    const url = filled(fixture.notification.url, vars)
    const hook = new URL(url)
    const mine = () => receiver.received.filter((r) => r.path === `${hook.pathname}${hook.search}`)
    const statuses: number[] = []
    for (const [verb, status] of [
      ['fail', 3],
      ['pending', 2],
      ['pay', 1],
    ] as const) {
      const settled = (await key.call('POST', `/_sandbox/payment-links/${vars.LINK}/${verb}`)).json
      const notified = await waitFor(() => mine()[statuses.length], `the ${verb} notification`)
      statuses.push(status)
      const { data } = JSON.parse(notified.body) as { data: Json }
      expect([verb, data.payment_status, data.payment_link_id, data.payment_link_reference_2]).toEqual([
        verb,
        status,
        vars.LINK,
        fixture.notification.referenceTwo,
      ])
      expect(data.payment_link_reference).toBe(fixture.notification.reference)
      for (const required of fixture.notification.requires)
        expect([required, data[required] ?? null]).not.toEqual([required, null])
      if (fixture.notification.hash !== 'none') {
        expect(
          pluginHashHolds(data, vars.SIGNATURE, fixture.notification.hash, fixture.notification.requires),
        ).toBe(true)
        // The values are ones the plugins' sanitising leaves as they are: WooCommerce's and GiveWP's checks agree.
        expect(pluginHashHolds(data, vars.SIGNATURE, 'raw', [])).toBe(true)
      }
      // The return: what the plugin reads there, from this attempt; its own parameters as it wrote them.
      const back = new URL(settled.redirect_to)
      for (const read of fixture.return.reads) {
        expect([verb, read, back.searchParams.getAll(read)]).toEqual([verb, read, [String(data[read])]])
      }
      for (const [own, value] of Object.entries(fixture.return.own))
        expect([verb, own, back.searchParams.getAll(own)]).toEqual([verb, own, [value]])
    }
    expect(statuses).toEqual([3, 2, 1])
  })
})
