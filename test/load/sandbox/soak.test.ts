import { isDeepStrictEqual } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { keyHash, listPackages } from '../../../src/sandbox/domain/business.js'
import type { Json } from '../../helpers/links.js'
import { exited, killStarted } from '../../helpers/processes.js'
import {
  type Client,
  clientFor,
  KEY_A,
  KEY_B,
  readStore,
  tempDir,
  VALID_TOKEN,
} from '../../helpers/sandbox.js'
import {
  isChangeOf,
  isNewLink,
  isNewSubscription,
  isNewTokenization,
  LINK_NOT_FOUND,
  linkFields,
  linkInput,
  listAll,
  pagePaths,
  randomSource,
  SEED,
  SOAK_CLIENTS,
  SOAK_SECONDS,
  SUB_NOT_FOUND,
  startMain,
  subscriptionChange,
} from '../../helpers/sandbox-load.js'
import { mapConcurrent } from '../../helpers/subs.js'

/** The sandbox holds: a soak of 50 clients on every endpoint loses and breaks nothing. PAY_SOAK_SECONDS and PAY_SANDBOX_SEED change its length and replay a seed. */

afterEach(killStarted)

const SOAK_ENDPOINTS = [
  'token create',
  'link create',
  'link update',
  'link get',
  'link index',
  'link delete',
  'sub create',
  'sub retrieve',
  'sub update',
  'sub cancel',
  'sub delete',
  'sub list',
] as const
type SoakEndpoint = (typeof SOAK_ENDPOINTS)[number]

/** Creates outweigh deletes so that records pile up, to a cap per client. */
const SOAK_MIX: [SoakEndpoint, number][] = [
  ['token create', 1],
  ['link create', 2],
  ['link update', 2],
  ['link get', 2],
  ['link index', 1],
  ['link delete', 1],
  ['sub create', 2],
  ['sub retrieve', 2],
  ['sub update', 1],
  ['sub cancel', 1],
  ['sub delete', 1],
  ['sub list', 1],
]
const SOAK_CAP_PER_CLIENT = 12
/** Endpoints that name one of the client's own records: a create runs instead while it has none. */
const NEEDS_OWN_RECORD = new Set<SoakEndpoint>([
  'link update',
  'link get',
  'link delete',
  'sub retrieve',
  'sub update',
  'sub cancel',
  'sub delete',
])

/** What one business should hold: every acknowledged write applied. */
interface SoakBusiness {
  key: string
  client: Client
  businessId: number
  packages: Json[]
  tokenizations: Map<string, Json>
  links: Map<string, Json>
  subscriptions: Map<string, Json>
  deletedLinks: Set<string>
  deletedSubscriptions: Set<string>
}

interface SoakTally {
  counts: Record<SoakEndpoint, number>
  serverErrors: number
  /** Every answer not exactly the one expected. */
  problems: string[]
}

/**
 * One soak client: a loop of requests of its business until the deadline. Each client writes only
 * records it created, one request at a time, so the model knows the exact state of each record.
 */
async function soakClient(
  index: number,
  baseUrl: string,
  businesses: SoakBusiness[],
  tally: SoakTally,
  deadline: number,
) {
  const random = randomSource(SEED + index)
  const business = businesses[index % 2]
  const other = businesses[1 - (index % 2)]
  const links: string[] = []
  const subscriptions: string[] = []
  const deletedLinks: string[] = []
  const deletedSubscriptions: string[] = []
  const check = (ok: boolean, what: string) => {
    if (!ok) tally.problems.push(`client ${index}: ${what}`)
  }
  /** The JSON answer, or undefined (and a problem) when the status is not `expected`. */
  const send = async (
    endpoint: SoakEndpoint,
    method: string,
    route: string,
    body?: unknown,
    expected = 200,
  ) => {
    tally.counts[endpoint]++
    try {
      const answer = await business.client.call(method, route, body)
      if (answer.status >= 500) tally.serverErrors++
      check(answer.status === expected, `${method} ${route}: ${answer.status} ${answer.text.slice(0, 300)}`)
      return answer.status === expected ? answer.json : undefined
    } catch (error) {
      check(false, `${method} ${route}: ${(error as Error).message}`)
      return undefined
    }
  }
  const takeFrom = (ids: string[]) => ids.splice(random.int(ids.length), 1)[0]

  for (let n = 0; Date.now() < deadline; n++) {
    const unique = `c${index}-${n}`
    let endpoint = random.weighted(SOAK_MIX)
    const ownRecords = endpoint.startsWith('link') ? links : subscriptions
    if (NEEDS_OWN_RECORD.has(endpoint) && ownRecords.length === 0)
      endpoint = endpoint.startsWith('link') ? 'link create' : 'sub create'
    if (endpoint === 'link create' && links.length >= SOAK_CAP_PER_CLIENT) endpoint = 'link delete'
    if (endpoint === 'sub create' && subscriptions.length >= SOAK_CAP_PER_CLIENT) endpoint = 'sub delete'

    switch (endpoint) {
      case 'token create': {
        const input = random.chance(0.5)
          ? { ...VALID_TOKEN, email: `${unique}@example.com` }
          : {
              ...VALID_TOKEN,
              email: `${unique}@example.com`,
              phone_no: '+2348012345678',
              redirect_url: 'https://shop.example/done',
            }
        const data = (await send(endpoint, 'POST', '/tokenizations/create-token', input))?.data
        if (!data) break
        check(isNewTokenization(data, input, baseUrl), `token create answered ${JSON.stringify(data)}`)
        business.tokenizations.set(data._id, data)
        break
      }
      case 'link create': {
        const input = linkInput(random, unique)
        const data = (await send(endpoint, 'POST', '/payment-links', input))?.data
        if (!data) break
        check(
          isNewLink(data, input, business.businessId, baseUrl),
          `link create answered ${JSON.stringify(data)}`,
        )
        business.links.set(data._id, data)
        links.push(data._id)
        break
      }
      case 'link update': {
        const id = random.pick(links)
        const input = linkInput(random, unique)
        const data = (await send(endpoint, 'PUT', `/payment-links/${id}`, input))?.data
        if (!data) break
        check(
          isChangeOf(data, business.links.get(id), linkFields(input)),
          `link update answered ${JSON.stringify(data)}`,
        )
        business.links.set(id, data)
        break
      }
      case 'link get': {
        if (deletedLinks.length > 0 && random.chance(0.2)) {
          const answer = await send(
            endpoint,
            'GET',
            `/payment-links/${random.pick(deletedLinks)}`,
            undefined,
            404,
          )
          if (answer)
            check(
              isDeepStrictEqual(answer, LINK_NOT_FOUND),
              `deleted link answered ${JSON.stringify(answer)}`,
            )
          break
        }
        const id = random.pick(links)
        const data = (await send(endpoint, 'GET', `/payment-links/${id}`))?.data
        if (data)
          check(isDeepStrictEqual(data, business.links.get(id)), `link get answered ${JSON.stringify(data)}`)
        break
      }
      case 'link index': {
        const [perPage, page] = [random.pick([1, 10, 50, 500]), 1 + random.int(3)]
        const data = (await send(endpoint, 'GET', `/payment-links?per_page=${perPage}&page=${page}`))?.data
        if (!data) break
        check(
          data.per_page === perPage && data.current_page === page,
          `link index paged ${data.per_page}/${data.current_page}`,
        )
        for (const link of data.data) {
          const foreign =
            link.business_id !== business.businessId ||
            other.links.has(link._id) ||
            other.deletedLinks.has(link._id)
          check(!foreign, `link index showed another business's link ${link._id}`)
        }
        break
      }
      case 'link delete': {
        const id = takeFrom(links)
        const answer = await send(endpoint, 'DELETE', `/payment-links/${id}`)
        if (!answer) break
        check(answer.data === null, `link delete answered ${JSON.stringify(answer.data)}`)
        business.links.delete(id)
        business.deletedLinks.add(id)
        deletedLinks.push(id)
        break
      }
      case 'sub create': {
        const input: Json = { package_id: random.pick(business.packages)._id, email: `${unique}@example.com` }
        if (random.chance(0.3)) input.phone_no = '+2348012345678'
        const data = (await send(endpoint, 'POST', '/subscriptions', input))?.data
        if (!data) break
        check(
          isNewSubscription(data, input, business.packages),
          `sub create answered ${JSON.stringify(data)}`,
        )
        business.subscriptions.set(data._id, data)
        subscriptions.push(data._id)
        break
      }
      case 'sub retrieve': {
        if (deletedSubscriptions.length > 0 && random.chance(0.2)) {
          const route = `/subscriptions/${random.pick(deletedSubscriptions)}`
          const answer = await send(endpoint, 'GET', route, undefined, 404)
          if (answer)
            check(isDeepStrictEqual(answer, SUB_NOT_FOUND), `deleted sub answered ${JSON.stringify(answer)}`)
          break
        }
        const id = random.pick(subscriptions)
        const data = (await send(endpoint, 'GET', `/subscriptions/${id}`))?.data
        if (data)
          check(
            isDeepStrictEqual(data, business.subscriptions.get(id)),
            `sub retrieve answered ${JSON.stringify(data)}`,
          )
        break
      }
      case 'sub update':
      case 'sub cancel': {
        const id = random.pick(subscriptions)
        const previous = business.subscriptions.get(id)
        const change = endpoint === 'sub cancel' ? { status: 'cancel' } : subscriptionChange(random, unique)
        const data = (await send(endpoint, 'PUT', `/subscriptions/${id}`, change))?.data
        if (!data) break
        const unchanged = Object.entries(change).every(([field, value]) => previous[field] === value)
        check(
          unchanged ? isDeepStrictEqual(data, previous) : isChangeOf(data, previous, change),
          `${endpoint} ${JSON.stringify(change)} of ${JSON.stringify(previous)} answered ${JSON.stringify(data)}`,
        )
        business.subscriptions.set(id, data)
        break
      }
      case 'sub delete': {
        const id = takeFrom(subscriptions)
        const answer = await send(endpoint, 'DELETE', `/subscriptions/${id}`)
        if (!answer) break
        check(answer.data === null, `sub delete answered ${JSON.stringify(answer.data)}`)
        business.subscriptions.delete(id)
        business.deletedSubscriptions.add(id)
        deletedSubscriptions.push(id)
        break
      }
      case 'sub list': {
        const [perPage, page] = [random.pick([1, 10, 50, 500]), 1 + random.int(3)]
        const data = (await send(endpoint, 'GET', `/subscriptions?per_page=${perPage}&page=${page}`))?.data
        if (!data) break
        check(
          data.per_page === perPage && data.current_page === page,
          `sub list paged ${data.per_page}/${data.current_page}`,
        )
        for (const subscription of data.data) {
          const foreign =
            subscription.package.business_id !== business.businessId ||
            other.subscriptions.has(subscription._id) ||
            other.deletedSubscriptions.has(subscription._id)
          check(!foreign, `sub list showed another business's subscription ${subscription._id}`)
        }
        break
      }
    }
  }
}

describe('soak', () => {
  it(
    `serves ${SOAK_CLIENTS} concurrent clients on every endpoint for ${SOAK_SECONDS} s: no 5xx, no unexpected answer, nothing lost`,
    async () => {
      const dir = tempDir('pay-soak-')
      const sandbox = await startMain(dir)
      const businesses: SoakBusiness[] = [KEY_A, KEY_B].map((key) => ({
        key,
        client: clientFor(sandbox.baseUrl, key),
        businessId: listPackages(key)[0].business_id,
        packages: listPackages(key),
        tokenizations: new Map(),
        links: new Map(),
        subscriptions: new Map(),
        deletedLinks: new Set(),
        deletedSubscriptions: new Set(),
      }))
      const tally: SoakTally = {
        counts: Object.fromEntries(SOAK_ENDPOINTS.map((endpoint) => [endpoint, 0])) as SoakTally['counts'],
        serverErrors: 0,
        problems: [],
      }
      const deadline = Date.now() + SOAK_SECONDS * 1000
      await Promise.all(
        Array.from({ length: SOAK_CLIENTS }, (_, index) =>
          soakClient(index, sandbox.baseUrl, businesses, tally, deadline),
        ),
      )
      // Each problem names its request and answer (5xx included); the first 20 are shown.
      expect({ problems: tally.problems.length, first: tally.problems.slice(0, 20) }).toEqual({
        problems: 0,
        first: [],
      })
      expect(tally.serverErrors).toBe(0)
      for (const endpoint of SOAK_ENDPOINTS) expect(tally.counts[endpoint], endpoint).toBeGreaterThan(0)

      // Every acknowledged record, in its last acknowledged state, and nothing else: by list and by id.
      const mismatches: string[] = []
      for (const business of businesses) {
        const links = await listAll(business.client, '/payment-links')
        expect(Object.fromEntries(links)).toStrictEqual(Object.fromEntries(business.links))
        const subscriptions = await listAll(business.client, '/subscriptions')
        expect(Object.fromEntries(subscriptions)).toStrictEqual(Object.fromEntries(business.subscriptions))
        const byId: [string, Json | undefined][] = [
          ...[...business.links].map(([id, link]): [string, Json] => [`/payment-links/${id}`, link]),
          ...[...business.subscriptions].map(([id, sub]): [string, Json] => [`/subscriptions/${id}`, sub]),
          ...[...business.deletedLinks].map((id): [string, undefined] => [`/payment-links/${id}`, undefined]),
          ...[...business.deletedSubscriptions].map((id): [string, undefined] => [
            `/subscriptions/${id}`,
            undefined,
          ]),
        ]
        await mapConcurrent(byId, SOAK_CLIENTS, async ([route, expected]) => {
          const answer = await business.client.call('GET', route)
          const ok =
            expected === undefined
              ? answer.status === 404
              : answer.status === 200 && isDeepStrictEqual(answer.json.data, expected)
          if (!ok) mismatches.push(`GET ${route}: ${answer.status} ${answer.text.slice(0, 300)}`)
        })
      }
      expect(mismatches.slice(0, 20)).toEqual([])

      // Tokenizations have no read endpoint: the store must hold each one as answered.
      sandbox.child.kill('SIGTERM')
      await exited(sandbox.child)
      expect(sandbox.child.exitCode).toBe(0)
      const stored = readStore(dir)
      for (const business of businesses) {
        const own = stored.businesses[keyHash(business.key)]
        // The store keeps each page's path; the answers named the serving address.
        const paths = (records: Map<string, Json>) =>
          Object.fromEntries([...records].map(([id, record]) => [id, pagePaths(record)]))
        expect(own.tokenizations).toStrictEqual(paths(business.tokenizations))
        expect(own.payment_links).toStrictEqual(paths(business.links))
        expect(own.subscriptions).toStrictEqual(Object.fromEntries(business.subscriptions))
      }

      const requests = Object.values(tally.counts).reduce((sum, count) => sum + count, 0)
      const checked = businesses.reduce(
        (sum, b) =>
          sum +
          b.tokenizations.size +
          b.links.size +
          b.subscriptions.size +
          b.deletedLinks.size +
          b.deletedSubscriptions.size,
        0,
      )
      const perEndpoint = SOAK_ENDPOINTS.map((endpoint) => `${endpoint} ${tally.counts[endpoint]}`).join(', ')
      console.log(
        `sandbox soak: ${requests} requests (${perEndpoint}) by ${SOAK_CLIENTS} clients in ${SOAK_SECONDS} s, ` +
          `${tally.serverErrors} 5xx, ${checked} records checked (seed ${SEED})`,
      )
    },
    SOAK_SECONDS * 1000 + 60_000,
  )
})

// ---- 2. kill -9 ----
