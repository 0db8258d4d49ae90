/**
 * 9. The sandbox's notifications (webhooks), `pay sandbox start` in a process of its own, a
 * receiver that answers 200 at once in another (webhook-receiver.mjs):
 *   (a) deliveries per second: N notifications waiting in the outbox (made by a first sandbox
 *       whose `WEBHOOK payment.created delay 20s` rule held them, stopped before they were due),
 *       then delivered by a second sandbox started on the directory; against a plain node
 *       `fetch` loop in the bench process posting the same N bodies to the same receiver, one
 *       at a time. Both timed by the receiver, from the first body it got to the last. Goal: at
 *       least 0.5× the loop's rate.
 *   (b) payments per second, `POST /_sandbox/payment-links/{id}/pay` of N unpaid links from 4
 *       clients at once, against a sandbox with one endpoint registered and one with none, in
 *       interleaved rounds. Goal: at least 0.8× the rate with none.
 * Times are reported, never asserted.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { BENCH, cleanEnv, log, median, NODE, QUICK, ratio, startJsonChild, tempDir } from './lib.js'

const DELIVERIES = QUICK ? 200 : 2000
const PAYMENTS = QUICK ? 200 : 1000
const ROUNDS = QUICK ? 1 : 3
const CLIENTS = 4
/** How long the first sandbox's rule holds the notifications it makes. */
const HELD_MS = 20_000
const LINK = { email: 'ada@example.com', currency: 'EUR', amount: '25.50', title: 'Invoice 42' }
const perSecond = (count, ms) => `${Math.round((count / ms) * 1000).toLocaleString('en')}/s`

/** A sandbox (`pay sandbox start`) on `dir`, with `args`: a call to its API with its key, and stop(). */
async function sandboxOn(pay, dir, args = []) {
  const child = await startJsonChild(
    [NODE, pay, 'sandbox', 'start', '--port', '0', '--json', '--quiet', ...args],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  const { base_url: baseUrl, keys } = child.info
  const headers = {
    Authorization: `Bearer ${keys[0]}`,
    Accept: 'application/json',
    'Content-Type': 'application/json',
  }
  const call = async (method, route, body) => {
    const answer = await fetch(`${baseUrl}${route}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await answer.text()
    if (answer.status !== 200) throw new Error(`${method} ${route} answered ${answer.status}: ${text}`)
    return JSON.parse(text).data
  }
  return { call, stop: child.stop }
}

/** `count` unpaid links of the sandbox's first business, made 8 at a time. */
async function newLinks(sandbox, count) {
  const ids = []
  for (let made = 0; made < count; made += 8) {
    const batch = Array.from({ length: Math.min(8, count - made) }, () =>
      sandbox.call('POST', '/payment-links', LINK),
    )
    for (const link of await Promise.all(batch)) ids.push(link._id)
  }
  return ids
}

/** Pays `ids` from CLIENTS clients at once; milliseconds. */
async function payAll(sandbox, ids) {
  const queue = [...ids]
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        await sandbox.call('POST', `/_sandbox/payment-links/${id}/pay`)
      }
    }),
  )
  return Number(process.hrtime.bigint() - started) / 1e6
}

/** `{count, span_ms}`: the bodies the receiver holds, the milliseconds from the first to the last. */
async function countOf(receiver) {
  return await (await fetch(`${receiver.info.url}/count`)).json()
}

/** Waits until the receiver holds `count` bodies; the milliseconds from its first to its last. */
async function received(receiver, count) {
  for (;;) {
    const got = await countOf(receiver)
    if (got.count >= count) return got.span_ms
    await sleep(20)
  }
}

const forget = (receiver) => fetch(`${receiver.info.url}/bodies`, { method: 'DELETE' })

export async function benchWebhooks({ pay }) {
  const rows = []
  const receiver = await startJsonChild([NODE, `${BENCH}/webhook-receiver.mjs`], process.env)
  const hook = `${receiver.info.url}/hook`
  try {
    // (a) N notifications held in the outbox by a first sandbox, delivered by a second.
    const dir = tempDir('webhooks-outbox')
    const held = `WEBHOOK payment.created delay ${HELD_MS / 1000}s`
    const first = await sandboxOn(pay, dir, ['--webhook', hook, '--fault', held])
    const ids = await newLinks(first, DELIVERIES)
    const started = Date.now()
    await payAll(first, ids)
    await first.stop()
    if ((await countOf(receiver)).count !== 0)
      throw new Error('notifications came before the outbox was full')
    await sleep(Math.max(0, started + HELD_MS + 500 - Date.now()))
    const second = await sandboxOn(pay, dir)
    const bySandbox = await received(receiver, DELIVERIES)
    await second.stop()
    const bodies = await (await fetch(`${receiver.info.url}/bodies`)).json()
    await forget(receiver)
    for (const body of bodies) {
      const answer = await fetch(hook, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      })
      await answer.arrayBuffer()
    }
    const byLoop = await received(receiver, DELIVERIES)
    await forget(receiver)
    rows.push({
      what: `${DELIVERIES} notifications delivered from the outbox by a sandbox started on it`,
      value: perSecond(DELIVERIES, bySandbox),
      ratio: ratio(byLoop / bySandbox),
      goal: '≥ 0.5× the fetch loop',
    })
    rows.push({
      what: 'a plain node fetch loop posting the same bodies, one at a time',
      value: perSecond(DELIVERIES, byLoop),
      ratio: ratio(1),
    })
    log(`  (a) sandbox ${Math.round(bySandbox)} ms, fetch loop ${Math.round(byLoop)} ms`)

    // (b) payments with one endpoint and with none, interleaved rounds.
    const withHook = await sandboxOn(pay, tempDir('webhooks-with'), ['--webhook', hook])
    const without = await sandboxOn(pay, tempDir('webhooks-without'))
    const times = { with: [], without: [] }
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? ['without', 'with'] : ['with', 'without']
        for (const name of order) {
          const sandbox = name === 'with' ? withHook : without
          const links = await newLinks(sandbox, PAYMENTS)
          times[name].push(await payAll(sandbox, links))
        }
      }
      await received(receiver, PAYMENTS * ROUNDS)
    } finally {
      await withHook.stop()
      await without.stop()
    }
    const [withMs, withoutMs] = [median(times.with), median(times.without)]
    rows.push({
      what: `${PAYMENTS} payments from ${CLIENTS} clients, one endpoint registered (each notified)`,
      value: perSecond(PAYMENTS, withMs),
      ratio: ratio(withoutMs / withMs),
      goal: '≥ 0.8× with none',
    })
    rows.push({
      what: `${PAYMENTS} payments, no endpoint`,
      value: perSecond(PAYMENTS, withoutMs),
      ratio: ratio(1),
    })
    const shown = (list) => list.map(Math.round).join(', ')
    log(`  (b) with an endpoint ${shown(times.with)} ms; with none ${shown(times.without)} ms`)
  } finally {
    await receiver.stop()
  }
  return {
    title: '9. Sandbox notifications (webhooks)',
    rows,
    notes: [
      `(a) ${DELIVERIES} notifications held in the outbox by a first sandbox (a WEBHOOK delay rule) and ` +
        'delivered by a second one started on the directory, against a fetch loop in the bench process ' +
        'posting the same bodies, one at a time, keep-alive; each timed by the receiver (a process of its ' +
        "own, answering 200 at once) from the first body to the last. Ratio: the sandbox's rate to the loop's.",
      `(b) ${PAYMENTS} POST /_sandbox/payment-links/{id}/pay from ${CLIENTS} clients at once (the links made ` +
        `untimed before), ${ROUNDS} interleaved rounds, medians; the deliveries go on while the payments are ` +
        'answered. Ratio: the rate with an endpoint to the rate with none.',
    ],
  }
}
