import { expect } from 'vitest'
import { businessIdOf, keyHash } from '../../src/sandbox/domain/business.js'
import { inStore } from '../../src/sandbox/store/local.js'
import type { FakeServer } from './fake-server.js'
import type { TestSandbox } from './sandbox.js'

/** A key that only the fake server sees. */
export const FAKE_KEY = 'sk_test_fake_9f8e7d6c5b4a3210'

/** `links create` with its required flags; the amount as given. */
export const linkCreateArgs = (amount = '25.50') => [
  ...['links', 'create', '--email', 'a@b.co', '--currency', 'EUR'],
  ...['--amount', amount, '--title', 'T'],
]

/**
 * The text fields of a payment link's create and update bodies (docs/spec/payment-service-api.md
 * 4.2, 4.3).
 */
export const LINK_TEXT_FIELDS = [
  'email',
  'currency',
  'amount',
  'title',
  'phone_no',
  'description',
  'redirect_url',
  'reference',
  'reference_2',
]

/** Env for runCli/startTerminal: the fake server as the target, no profile. */
export const fakeEnv = (fake: FakeServer) => ({ PAY_API_KEY: FAKE_KEY, PAY_BASE_URL: fake.baseUrl })

// biome-ignore lint/suspicious/noExplicitAny: records are arbitrary JSON; tests assert their shape
export type Json = any

/** Creates a payment link straight through the sandbox's HTTP API (fast: no CLI process). */
export async function seedLink(sandbox: TestSandbox, fields: Record<string, unknown> = {}): Promise<Json> {
  const answer = await sandbox.request('POST', '/payment-links', {
    email: 'seed@example.com',
    currency: 'EUR',
    amount: '10.00',
    title: 'Seeded link',
    ...fields,
  })
  expect(answer.status).toBe(200)
  return answer.body.data
}

/**
 * A payment link whose fields the service's rules would refuse today (a title over 50
 * characters): made with a short title, then `fields` written into the store, as a record made
 * before the rule holds them. pay shows whatever a service sends.
 */
export async function seedHeldLink(sandbox: TestSandbox, fields: Record<string, unknown>): Promise<Json> {
  const made = await seedLink(sandbox)
  const business = { keyHash: keyHash(sandbox.key), businessId: businessIdOf(sandbox.key) }
  inStore(sandbox.dir, (store) =>
    store.write(() => store.replace('payment_links', business, { ...made, ...fields })),
  )
  return (await sandbox.request('GET', `/payment-links/${made._id}`)).body.data
}

/** The link as the sandbox holds it, or undefined when it does not exist (404). */
export async function storedLink(sandbox: TestSandbox, id: string): Promise<Json | undefined> {
  const answer = await sandbox.request('GET', `/payment-links/${id}`)
  if (answer.status === 404) return undefined
  expect(answer.status).toBe(200)
  return answer.body.data
}

/**
 * The control characters in `bytes` that a terminal would act on: C0 controls but tab and
 * newline, DEL, and C1 controls (UTF-8: C2 80 .. C2 9F). Each as "offset:hex".
 */
export function rawControlBytes(bytes: Buffer, allowed: number[] = [0x09, 0x0a]): string[] {
  const found: string[] = []
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i]
    const c0 = (byte < 0x20 && !allowed.includes(byte)) || byte === 0x7f
    const c1 = byte === 0xc2 && i + 1 < bytes.length && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9f
    if (c0) found.push(`${i}:${byte.toString(16).padStart(2, '0')}`)
    if (c1) found.push(`${i}:c2${bytes[i + 1].toString(16)}`)
  }
  return found
}

/** A title made to attack a terminal: SGR red, BEL, carriage return, and the C1 CSI. */
export const HOSTILE_TITLE = 'Red\u001b[31mAlert\u0007Bell\rReturn\u009bC1 end'
/** The same title as pay must show it outside JSON (caret notation, as `cat -v`). */
export const HOSTILE_TITLE_SHOWN = 'Red^[[31mAlert^GBell^MReturnM-^[C1 end'
