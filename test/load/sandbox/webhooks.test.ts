import { afterEach, describe, expect, it, vi } from 'vitest'
import { exited, killStarted, type SandboxProcess } from '../../helpers/processes.js'
import { type Receiver, startReceiver } from '../../helpers/receiver.js'
import { type Client, clientFor, KEY_A, tempDir, VALID_LINK } from '../../helpers/sandbox.js'
import { startMain } from '../../helpers/sandbox-load.js'

/**
 * The outbox's bookkeeping across processes: two sandboxes on one directory attempt each
 * delivery once per attempt it is due for; one killed with `kill -9` before or during an attempt
 * leaves it to the next sandbox on the directory; one answered 2xx is never sent again. The
 * sandboxes are processes of their own (test/helpers/sandbox-main.ts) with the default delivery
 * (1 s, then 2 s, between attempts).
 */

afterEach(killStarted)
const receivers: Receiver[] = []
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close()
})

async function receiver(answer: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(answer)
  receivers.push(started)
  return started
}

const client = (sandbox: SandboxProcess) => clientFor(sandbox.baseUrl, KEY_A)

async function payNewLink(through: Client): Promise<string> {
  const link = (await through.call('POST', '/payment-links', VALID_LINK)).json.data
  expect((await through.call('POST', `/_sandbox/payment-links/${link._id}/pay`)).status).toBe(200)
  return link._id
}

const deliveries = async (sandbox: SandboxProcess) =>
  (await client(sandbox).call('GET', '/_sandbox/webhooks/deliveries')).json.data as {
    state: string
    attempts: { status: number | null }[]
  }[]

/** The attempt_id of each notification received, and how many times each came. */
function counts(hook: Receiver): Map<string, number> {
  const seen = new Map<string, number>()
  for (const notification of hook.notifications()) {
    const id = notification.data.attempt_id
    seen.set(id, (seen.get(id) ?? 0) + 1)
  }
  return seen
}

describe('the outbox across processes', () => {
  it('two sandboxes on one directory: every notification retried once after a 500, then delivered, never a third time', async () => {
    const firstSeen = new Set<string>()
    const hook = await receiver((received) => {
      const id = JSON.parse(received.body).data.attempt_id
      if (firstSeen.has(id)) return 200
      firstSeen.add(id)
      return 500
    })
    const dir = tempDir('pay-outbox-')
    const [one, two] = await Promise.all([startMain(dir), startMain(dir)])
    await client(one).call('POST', '/_sandbox/webhooks', { url: hook.url })
    const links = await Promise.all(
      Array.from({ length: 120 }, (_, i) => payNewLink(client(i % 2 === 0 ? one : two))),
    )
    const allDelivered = (count: number) =>
      vi.waitFor(
        async () => {
          const states = (await deliveries(one)).map((delivery) => delivery.state)
          expect(states.filter((state) => state === 'delivered')).toHaveLength(count)
        },
        { timeout: 60_000, interval: 250 },
      )
    await allDelivered(120)
    // One later notification made by each, retried at a look at the outbox (its first answer a
    // 500) after the 120 were delivered: anything sent again would have come before them.
    const later = [await payNewLink(client(one)), await payNewLink(client(two))]
    await allDelivered(122)
    const seen = counts(hook)
    expect(seen.size).toBe(122)
    expect([...seen.values()].every((count) => count === 2)).toBe(true)
    expect(new Set(hook.notifications().map((n) => n.data.payment_link_id))).toEqual(
      new Set([...links, ...later]),
    )
    expect((await deliveries(two)).every((d) => d.attempts.map((a) => a.status).join() === '500,200')).toBe(
      true,
    )
  })

  it('kill -9 while a retry is due: the next sandbox on the directory makes it; once answered 2xx, never again', async () => {
    // Each notification's first attempt is answered 503, its retry 200.
    const hook = await receiver((_, i) => (i % 2 === 0 ? 503 : 200))
    const dir = tempDir('pay-outbox-')
    const first = await startMain(dir)
    await client(first).call('POST', '/_sandbox/webhooks', { url: hook.url })
    const paid = await payNewLink(client(first))
    // The retry is due once the first attempt's answer is in the outbox, not when it was sent.
    await vi.waitFor(
      async () => expect((await deliveries(first))[0].attempts.map((a) => a.status)).toEqual([503]),
      { timeout: 10_000 },
    )
    expect(hook.received).toHaveLength(1)
    first.child.kill('SIGKILL')
    await exited(first.child)
    const second = await startMain(dir)
    await vi.waitFor(async () => expect((await deliveries(second))[0].state).toBe('delivered'), {
      timeout: 15_000,
    })
    second.child.kill('SIGKILL')
    await exited(second.child)
    const third = await startMain(dir)
    // A later notification made by the third, retried at one of its looks at the outbox (its first
    // answer a 503): anything of the first it sent again would have come before it.
    const later = await payNewLink(client(third))
    await vi.waitFor(
      async () => expect((await deliveries(third)).map((d) => d.state)).toEqual(['delivered', 'delivered']),
      {
        timeout: 15_000,
      },
    )
    expect(hook.notifications().map((n) => n.data.payment_link_id)).toEqual([paid, paid, later, later])
    expect(hook.received[1].body).toBe(hook.received[0].body)
    expect((await deliveries(third))[0].attempts.map((a) => a.status)).toEqual([503, 200])
  })

  it('kill -9 during an attempt: the next sandbox on the directory attempts it again', async () => {
    const hook = await receiver((_, i) => (i === 0 ? 'hang' : 200))
    const dir = tempDir('pay-outbox-')
    const first = await startMain(dir)
    await client(first).call('POST', '/_sandbox/webhooks', { url: hook.url })
    await payNewLink(client(first))
    await vi.waitFor(() => expect(hook.received).toHaveLength(1), { timeout: 10_000 })
    first.child.kill('SIGKILL')
    await exited(first.child)
    const second = await startMain(dir)
    // Its lease is given back as the next sandbox starts (the process is gone), or runs out.
    await vi.waitFor(() => expect(hook.received).toHaveLength(2), { timeout: 30_000 })
    expect(hook.received[1].body).toBe(hook.received[0].body)
    await vi.waitFor(async () => expect((await deliveries(second))[0].state).toBe('delivered'), {
      timeout: 10_000,
    })
    // The attempt the killed process made was never recorded: one attempt, the one answered.
    expect((await deliveries(second))[0].attempts.map((a) => a.status)).toEqual([200])
  })
})
