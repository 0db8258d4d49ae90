import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PayApi } from '../../../src/api/client.js'
import { PayError } from '../../../src/errors.js'
import { print, shown } from '../../../src/render/result.js'
import { cancelSubscriptions } from '../../../src/work/subs/cancel.js'
import { type TestIOOptions, testOutput } from '../../helpers/io.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { cancelDirectly, seedSubscriptions, serverStatuses } from '../../helpers/subs.js'

/**
 * The bulk cancel workflow in this process, on a test IO object (no child process, no
 * terminal): against a real sandbox over loopback HTTP.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const target = { profile: 'sandbox', baseUrl: 'http://127.0.0.1' }
const client = () =>
  new PayApi({ baseUrl: sandbox.baseUrl, apiKey: sandbox.key, timeoutMs: 10_000, userAgent: 'pay-test' })

function job(ids: string[], io: TestIOOptions & { yes?: boolean; json?: boolean }, api = client()) {
  const { io: testIO, out } = testOutput(io)
  return {
    io: testIO,
    run: () =>
      cancelSubscriptions(api, {
        ids,
        concurrency: 1,
        target,
        consent: { yes: io.yes ?? false, dryRun: false },
        out,
        io: testIO,
      }).then((outcome) => print(out, shown.bulk(outcome))),
  }
}

describe('cancelSubscriptions', () => {
  it('describes each subscription, leaves out the unknown and the cancelled one, asks about the rest, reports every id', async () => {
    const [fresh, done] = await seedSubscriptions(sandbox, 2, { prefix: 'workflow' })
    await cancelDirectly(sandbox, [done])
    const { io, run } = job([fresh, done, 'ffffffffffffffffffffffff'], { terminal: true, answers: [true] })
    await expect(run()).rejects.toThrow('1 of 3 subscriptions not cancelled (1 not found).')
    expect(io.asked).toEqual(['Cancel 1 subscription?'])
    expect(io.stderr.text).toBe(
      'Warning: Not found, left out: ffffffffffffffffffffffff.\n' +
        `Already cancelled, nothing to do: ${done}.\n` +
        'About to cancel 1 subscription:\n' +
        '  profile:  sandbox\n' +
        '  base URL: http://127.0.0.1\n' +
        `  ${fresh}  workflow0@example.com · Starter · 120.00 USD  [created]\n` +
        '  looked up 3: 1 to cancel, 1 already cancelled, 1 not found\n' +
        "  total:    120.00 USD (the packages' prices)\n" +
        // The progress bar, redrawn in place, then cleared.
        '\r\u001b[2K[████████████████████] 1/1  cancelled 1' +
        '\r\u001b[2KOf 3 subscriptions: 1 cancelled, 1 already cancelled, 1 not cancelled (1 not found).\n',
    )
    const statuses = await serverStatuses(sandbox)
    expect([statuses.get(fresh), statuses.get(done)]).toEqual(['cancel', 'cancel'])
  })

  it('on Ctrl-C starts no new cancellation, finishes the one in flight, and reports the rest not done', async () => {
    const ids = await seedSubscriptions(sandbox, 4, { prefix: 'interrupted' })
    const api = client()
    const { io: testIO, out } = testOutput({ json: true })
    let reads = 0
    // The second read is the second id's: Ctrl-C lands while it is in flight.
    const interrupting = Object.assign(Object.create(api) as PayApi, {
      send: ((name, call) => {
        if (name === 'getSubscription' && ++reads === 2) testIO.interrupt()
        return api.send(name, call)
      }) as PayApi['send'],
    })
    const error = await cancelSubscriptions(interrupting, {
      ids,
      concurrency: 1,
      target,
      consent: { yes: true, dryRun: false },
      out,
      io: testIO,
    })
      // The workflow returns what it produced; the base command prints it (src/render/result.ts).
      .then((outcome) => print(out, shown.bulk(outcome)))
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(PayError)
    expect([(error as PayError).message, (error as PayError).exitCode]).toEqual([
      'Interrupted: 2 of 4 subscriptions were processed; the rest were not touched.',
      130,
    ])
    expect(JSON.parse(testIO.stdout.text).map((r: { status: string }) => r.status)).toEqual([
      'cancelled',
      'cancelled',
      'not_done',
      'not_done',
    ])
    expect(testIO.stderr.text).toContain('Stopping: no new cancellations; waiting for those in flight')
    const statuses = await serverStatuses(sandbox)
    expect(ids.map((id) => statuses.get(id))).toEqual(['cancel', 'cancel', 'created', 'created'])
  })
})
