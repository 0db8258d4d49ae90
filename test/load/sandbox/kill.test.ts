import { isDeepStrictEqual } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { listPackages } from '../../../src/sandbox/domain/business.js'
import type { Json } from '../../helpers/links.js'
import { exited, killStarted } from '../../helpers/processes.js'
import { clientFor, KEY_A, KEY_B, storeText, tempDir, VALID_TOKEN } from '../../helpers/sandbox.js'
import {
  isChangeOf,
  isNewLink,
  isNewSubscription,
  KILL_ROUNDS,
  KILL_WORKERS,
  linkFields,
  linkInput,
  listAll,
  pagePaths,
  type Random,
  randomSource,
  SEED,
  startMain,
  subscriptionChange,
} from '../../helpers/sandbox-load.js'

/** kill -9 at random moments mid-burst keeps every acknowledged write (PAY_SANDBOX_SEED replays a seed). */

afterEach(killStarted)

type Kind = 'link' | 'sub'

interface KillBusiness {
  key: string
  businessId: number
  packages: Json[]
  /** The state found after the last restart, id to record. */
  records: Record<Kind, Map<string, Json>>
}

/** A record some worker of the burst owns. */
interface Tracked {
  business: KillBusiness
  kind: Kind
  id: string
  /** Its last acknowledged state; null once a delete was acknowledged. */
  acked: Json | null
  /** A request sent after the last acknowledged one that got no answer: it may or may not have landed. */
  inFlight?: { type: 'update'; fields: Json } | { type: 'delete' }
}

/** A create that got no answer: its record may or may not exist, under an id nobody was told. */
interface PendingCreate {
  business: KillBusiness
  kind: Kind
  input: Json
  baseUrl: string
}

interface BurstResult {
  tracked: Tracked[]
  pending: PendingCreate[]
  acknowledged: number
  unanswered: number
  problems: string[]
}

const ROUTES: Record<Kind, string> = { link: '/payment-links', sub: '/subscriptions' }

/**
 * Concurrent creates, updates and deletes of links and subscriptions of both businesses, each
 * record written by one worker at a time; `kill` is called a random moment after the first
 * acknowledged write. Every worker stops at its first request that gets no answer.
 */
async function burst(
  baseUrl: string,
  businesses: KillBusiness[],
  random: Random,
  round: number,
  kill: () => void,
): Promise<BurstResult> {
  const result: BurstResult = { tracked: [], pending: [], acknowledged: 0, unanswered: 0, problems: [] }
  for (const business of businesses)
    for (const kind of ['link', 'sub'] as const)
      for (const [id, record] of business.records[kind])
        result.tracked.push({ business, kind, id, acked: record })
  let killScheduled = false
  const acknowledge = () => {
    result.acknowledged++
    if (!killScheduled) {
      killScheduled = true
      setTimeout(kill, random.int(250))
    }
  }

  const worker = async (index: number) => {
    const business = businesses[index % 2]
    const client = clientFor(baseUrl, business.key)
    const perBusiness = KILL_WORKERS / 2
    const mine = result.tracked.filter(
      (t, position) => t.business === business && position % perBusiness === Math.floor(index / 2),
    )
    for (let n = 0; ; n++) {
      const unique = `k${round}-${index}-${n}`
      let action = random.weighted([
        ['create link', 2],
        ['create sub', 2],
        ['update link', 3],
        ['update sub', 2],
        ['cancel sub', 1],
        ['delete link', 1],
        ['delete sub', 1],
      ] as const)
      const live = (kind: Kind) => mine.filter((t) => t.kind === kind && t.acked !== null)
      if (action.endsWith('link') && live('link').length === 0) action = 'create link'
      if (action.endsWith('sub') && live('sub').length === 0) action = 'create sub'
      try {
        if (action === 'create link' || action === 'create sub') {
          const kind: Kind = action === 'create link' ? 'link' : 'sub'
          const input =
            kind === 'link'
              ? linkInput(random, unique)
              : { package_id: random.pick(business.packages)._id, email: `${unique}@example.com` }
          const pending: PendingCreate = { business, kind, input, baseUrl }
          result.pending.push(pending)
          const answer = await client.call('POST', ROUTES[kind], input)
          if (answer.status !== 200)
            throw new Unexpected(`POST ${ROUTES[kind]}: ${answer.status} ${answer.text}`)
          result.pending.splice(result.pending.indexOf(pending), 1)
          const created: Tracked = {
            business,
            kind,
            id: answer.json.data._id,
            acked: pagePaths(answer.json.data),
          }
          result.tracked.push(created)
          mine.push(created)
        } else {
          const kind: Kind = action.endsWith('link') ? 'link' : 'sub'
          const target = random.pick(live(kind))
          const route = `${ROUTES[kind]}/${target.id}`
          if (action.startsWith('delete')) {
            target.inFlight = { type: 'delete' }
            const answer = await client.call('DELETE', route)
            if (answer.status !== 200)
              throw new Unexpected(`DELETE ${route}: ${answer.status} ${answer.text}`)
            target.acked = null
          } else {
            const body =
              action === 'update link'
                ? linkInput(random, unique)
                : action === 'cancel sub'
                  ? { status: 'cancel' }
                  : subscriptionChange(random, unique)
            const fields = kind === 'link' ? linkFields(body) : body
            target.inFlight = { type: 'update', fields }
            const answer = await client.call('PUT', route, body)
            if (answer.status !== 200) throw new Unexpected(`PUT ${route}: ${answer.status} ${answer.text}`)
            target.acked = pagePaths(answer.json.data)
          }
          target.inFlight = undefined
        }
        acknowledge()
      } catch (error) {
        if (error instanceof Unexpected) result.problems.push(error.message)
        else result.unanswered++
        return
      }
    }
  }
  await Promise.all(Array.from({ length: KILL_WORKERS }, (_, index) => worker(index)))
  return result
}

/** An answer that is not 200: a failure of the test, not the kill. */
class Unexpected extends Error {}

/** Each record of a list with its page addresses cut to their paths (pagePaths). */
const pathsOf = (records: Map<string, Json>) =>
  new Map([...records].map(([id, record]): [string, Json] => [id, pagePaths(record)]))

/** The record found after the restart is one the acknowledged and in-flight requests allow. */
function allowedOutcome(tracked: Tracked, found: Json | undefined): boolean {
  if (tracked.acked === null) return found === undefined
  if (found === undefined) return tracked.inFlight?.type === 'delete'
  if (isDeepStrictEqual(found, tracked.acked)) return true
  return tracked.inFlight?.type === 'update' && isChangeOf(found, tracked.acked, tracked.inFlight.fields)
}

describe('kill -9', () => {
  it(`at ${KILL_ROUNDS} random moments mid-burst keeps every acknowledged write`, async () => {
    const random = randomSource(SEED)
    const dir = tempDir('pay-kill-')
    const businesses: KillBusiness[] = [KEY_A, KEY_B].map((key) => ({
      key,
      businessId: listPackages(key)[0].business_id,
      packages: listPackages(key),
      records: { link: new Map(), sub: new Map() },
    }))
    let sandbox = await startMain(dir)
    let acknowledged = 0
    let unanswered = 0
    let landed = 0
    for (let round = 1; round <= KILL_ROUNDS; round++) {
      const killed = sandbox.child
      const outcome = await burst(sandbox.baseUrl, businesses, random, round, () => killed.kill('SIGKILL'))
      await exited(killed)
      const context = `round ${round}, seed ${SEED}`
      expect(outcome.problems, context).toEqual([])
      expect(killed.signalCode, context).toBe('SIGKILL')
      expect(outcome.acknowledged, context).toBeGreaterThan(0)
      expect(outcome.unanswered, context).toBe(KILL_WORKERS) // every worker was cut off by the kill
      acknowledged += outcome.acknowledged

      // The store a restart reads is whole (SQLite's integrity check passes).
      const text = storeText(dir)
      expect(JSON.parse(text), context).toMatchObject({ format: 'pay-sandbox-store', version: 1 })

      sandbox = await startMain(dir)
      const wrong: string[] = []
      for (const business of businesses) {
        const client = clientFor(sandbox.baseUrl, business.key)
        const found: Record<Kind, Map<string, Json>> = {
          link: pathsOf(await listAll(client, ROUTES.link)),
          sub: pathsOf(await listAll(client, ROUTES.sub)),
        }
        const explained = new Set<string>()
        for (const tracked of outcome.tracked.filter((t) => t.business === business)) {
          const record = found[tracked.kind].get(tracked.id)
          explained.add(tracked.id)
          if (tracked.inFlight) {
            unanswered++
            if (!isDeepStrictEqual(record, tracked.acked)) landed++
          }
          if (!allowedOutcome(tracked, record))
            wrong.push(
              `${tracked.kind} ${tracked.id}: ${JSON.stringify({ ...tracked, business: undefined, found: record })}`,
            )
        }
        // A record nobody was told about must be an unanswered create that landed, each at most once.
        unanswered += outcome.pending.filter((p) => p.business === business).length
        for (const kind of ['link', 'sub'] as const) {
          for (const record of found[kind].values()) {
            if (explained.has(record._id)) continue
            const pending = outcome.pending.find(
              (p) =>
                p.business === business &&
                p.kind === kind &&
                (kind === 'link'
                  ? isNewLink(record, p.input, business.businessId, '')
                  : isNewSubscription(record, p.input, business.packages)),
            )
            if (pending) {
              outcome.pending.splice(outcome.pending.indexOf(pending), 1)
              landed++
            } else wrong.push(`${kind} ${record._id} was never sent: ${JSON.stringify(record)}`)
          }
        }
        business.records = found
      }
      expect(wrong, context).toEqual([])
      // Reads take no lock: a write proves that a lock left by the killed sandbox does not block it.
      const probe = await clientFor(sandbox.baseUrl, KEY_A).call(
        'POST',
        '/tokenizations/create-token',
        VALID_TOKEN,
      )
      expect(probe.status, context).toBe(200)
    }
    console.log(
      `sandbox kill -9: ${KILL_ROUNDS} rounds, ${acknowledged} acknowledged writes, all present after restart ` +
        `(${unanswered} unanswered writes, ${landed} of which landed; seed ${SEED})`,
    )
  })
})

// ---- 3. Isolation on every endpoint ----
