import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import {
  type Sandbox,
  SandboxArgumentError,
  type StartSandboxOptions,
  startSandbox,
} from '../../../src/sandbox/library.js'
import { readSandboxKey } from '../../../src/shared/sandbox-key.js'
import { tempDir, VALID_LINK } from '../../helpers/sandbox.js'

/**
 * The library `pay-cli/sandbox` given what its functions do not take: each throws a
 * SandboxArgumentError naming the function, the argument, what it takes and what it got, before
 * doing anything, as the CLI refuses a bad flag; nothing is a silent no-op or a default taken in
 * its place. The library as a user installs it: test/e2e/dist/library.test.ts.
 */

let sandbox: Sandbox
let linkId: string
const link = async (id: string) => {
  const answer = await fetch(`${sandbox.baseUrl}/payment-links/${id}`, {
    headers: { Authorization: `Bearer ${sandbox.keys[0]}` },
  })
  return ((await answer.json()) as { data: { paid: boolean } }).data
}

beforeAll(async () => {
  sandbox = await startSandbox({ keys: ['sk_lib_a', 'sk_lib_b'] })
  const made = await fetch(`${sandbox.baseUrl}/payment-links`, {
    method: 'POST',
    headers: { Authorization: 'Bearer sk_lib_a', 'Content-Type': 'application/json' },
    body: JSON.stringify(VALID_LINK),
  })
  linkId = ((await made.json()) as { data: { _id: string } }).data._id
})
afterAll(() => sandbox.close())

/** What `act` threw: its class and message. */
function thrown(act: () => unknown): { name: string; message: string } {
  try {
    act()
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message }
  }
  throw new Error('it did not throw')
}

const argumentError = (message: string) => ({ name: 'SandboxArgumentError', message })

describe('sandbox.pay(id, outcome)', () => {
  it('refuses an outcome it does not take, naming the four it takes, and changes nothing', async () => {
    const cases: [unknown, string][] = [
      ['canceled', '"canceled"'],
      ['PAID', '"PAID"'],
      [undefined, 'undefined'],
      [null, 'null'],
      ['', '""'],
      [1, '1'],
    ]
    for (const [outcome, got] of cases) {
      expect(thrown(() => sandbox.pay(linkId, outcome as never))).toEqual(
        argumentError(
          `sandbox.pay(id, outcome): outcome must be one of paid, pending, cancelled, failed; got ${got}.`,
        ),
      )
    }
    expect((await link(linkId)).paid).toBe(false)
    // A TypeError, as Node's own argument checks throw.
    expect(() => sandbox.pay(linkId, 'canceled' as never)).toThrow(SandboxArgumentError)
    expect(() => sandbox.pay(linkId, 'canceled' as never)).toThrow(TypeError)
  })

  it('refuses an id that is not a string, and a third argument', () => {
    expect(thrown(() => sandbox.pay(undefined as never))).toEqual(
      argumentError(
        `sandbox.pay(id, outcome): id must be a payment link's _id (a non-empty string); got undefined.`,
      ),
    )
    expect(thrown(() => sandbox.pay({ _id: linkId } as never))).toEqual(
      argumentError(
        `sandbox.pay(id, outcome): id must be a payment link's _id (a non-empty string); got an object.`,
      ),
    )
    expect(thrown(() => (sandbox.pay as (...args: unknown[]) => unknown)(linkId, 'paid', 'now'))).toEqual(
      argumentError('sandbox.pay(id, outcome): takes at most 2 arguments; got 3.'),
    )
  })

  it('still settles synchronously and answers what came of it; no outcome is paid', async () => {
    const cancelled = sandbox.pay(linkId, 'cancelled')
    expect(cancelled).not.toBeInstanceOf(Promise)
    expect([cancelled.outcome, cancelled.link.paid]).toEqual(['cancelled', false])
    expect(sandbox.pay(linkId, 'failed').outcome).toBe('failed')
    expect(sandbox.pay(linkId).outcome).toBe('paid')
    expect((await link(linkId)).paid).toBe(true)
    expect(() => sandbox.pay('0123456789abcdef01234567')).toThrow(
      'No payment link 0123456789abcdef01234567 in the sandbox.',
    )
  })
})

describe('the other functions of a started sandbox', () => {
  it('deliveries takes {key, limit}: a key of this sandbox, a limit from 1 to 1000', () => {
    expect(sandbox.deliveries({ key: 'sk_lib_b', limit: 1 })).toEqual([])
    expect(thrown(() => sandbox.deliveries({ keys: 'sk_lib_a' } as never))).toEqual(
      argumentError('sandbox.deliveries(options): options has no "keys"; it takes key, limit.'),
    )
    expect(thrown(() => sandbox.deliveries({ limit: 0 }))).toEqual(
      argumentError('sandbox.deliveries(options): limit must be an integer from 1 to 1000; got 0.'),
    )
    expect(thrown(() => sandbox.deliveries({ key: 'sk_other' }))).toEqual(
      argumentError('sandbox.deliveries(options): key must be one of the sandbox\'s keys; got "sk…er".'),
    )
  })

  it('clock.advance and clock.set take text, and say what text', () => {
    const before = sandbox.clock.now()
    expect(thrown(() => sandbox.clock.advance(30 as never))).toEqual(
      argumentError(
        'sandbox.clock.advance(duration): duration must be a duration as text ("30d", "12h", "1mo"); got 30.',
      ),
    )
    expect(thrown(() => sandbox.clock.advance('soon'))).toEqual({
      name: 'ClockRefused',
      message: expect.stringMatching(/^The advance must be a duration: a whole number and a unit/),
    })
    expect(thrown(() => sandbox.clock.set(new Date() as never))).toEqual(
      argumentError(
        'sandbox.clock.set(to): to must be a date or date-time as text ("2027-01-01"); got a Date.',
      ),
    )
    expect(thrown(() => (sandbox.clock.now as (...args: unknown[]) => unknown)('x'))).toEqual(
      argumentError('sandbox.clock.now(): takes no arguments; got 1.'),
    )
    expect(sandbox.clock.now().offset_seconds).toBe(before.offset_seconds)
  })

  it('faults.set takes a list of rules and {seed}; faults.list a key of this sandbox', () => {
    expect(thrown(() => sandbox.faults.set('GET /payment-links 503' as never))).toEqual(
      argumentError(
        'sandbox.faults.set(rules, options): rules must be an array of rules, each a string ("POST /payment-links 503 x2"); got "GET /payment-links 503".',
      ),
    )
    expect(thrown(() => sandbox.faults.set([503] as never))).toEqual(
      argumentError(
        'sandbox.faults.set(rules, options): rules must be an array of rules, each a string ("POST /payment-links 503 x2"); got [503].',
      ),
    )
    expect(thrown(() => sandbox.faults.set([], { sead: 3 } as never))).toEqual(
      argumentError('sandbox.faults.set(rules, options): options has no "sead"; it takes seed.'),
    )
    expect(thrown(() => sandbox.faults.list('sk_other'))).toEqual(
      argumentError('sandbox.faults.list(key): key must be one of the sandbox\'s keys; got "sk…er".'),
    )
    expect(sandbox.faults.list('sk_lib_b').rules).toEqual([])
  })

  it('requests takes {key, after, limit}', () => {
    expect(thrown(() => sandbox.requests({ key: 'sk_nobody' }))).toEqual(
      argumentError('sandbox.requests(options): key must be one of the sandbox\'s keys; got "sk…dy".'),
    )
    expect(thrown(() => sandbox.requests({ limit: 0 }))).toEqual(
      argumentError('sandbox.requests(options): limit must be an integer from 1 to 1000; got 0.'),
    )
    expect(thrown(() => sandbox.requests({ after: -1 }))).toEqual(
      argumentError(
        `sandbox.requests(options): after must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}; got -1.`,
      ),
    )
    expect(thrown(() => sandbox.requests({ since: 3 } as never))).toEqual(
      argumentError('sandbox.requests(options): options has no "since"; it takes key, after, limit.'),
    )
    expect(sandbox.requests({ key: 'sk_lib_a', limit: 1 })).toHaveLength(1)
  })

  it('seed takes fixtures (a file name or an object) and {once}', () => {
    expect(thrown(() => sandbox.seed(undefined as never))).toEqual(
      argumentError(
        "sandbox.seed(fixtures, options): fixtures must be a fixture file's name or a fixtures object; got undefined.",
      ),
    )
    expect(thrown(() => sandbox.seed([] as never))).toEqual(
      argumentError(
        "sandbox.seed(fixtures, options): fixtures must be a fixture file's name or a fixtures object; got [].",
      ),
    )
    expect(thrown(() => sandbox.seed({}, { once: 'yes' } as never))).toEqual(
      argumentError('sandbox.seed(fixtures, options): once must be true or false; got "yes".'),
    )
  })

  it('snapshot and restore take a name', () => {
    expect(thrown(() => sandbox.snapshot(undefined as never))).toEqual(
      argumentError(
        'sandbox.snapshot(name): name must be a snapshot name (letters, digits, ".", "_" and "-", at most 64); got undefined.',
      ),
    )
    expect(thrown(() => sandbox.restore(42 as never))).toEqual(
      argumentError(
        'sandbox.restore(name): name must be a snapshot name (letters, digits, ".", "_" and "-", at most 64); got 42.',
      ),
    )
    expect(thrown(() => sandbox.snapshot('../up'))).toEqual({
      name: 'SnapshotError',
      message: expect.stringContaining('"../up"'),
    })
  })
})

describe('startSandbox(options)', () => {
  const refused = async (options: unknown, message: string) => {
    await expect(startSandbox(options as StartSandboxOptions)).rejects.toThrow(
      expect.objectContaining({ name: 'SandboxArgumentError', message }),
    )
  }

  it('given no keys, serves its directory’s own (the one `pay -p sandbox` sends there), never the well-known key unless given', async () => {
    const dir = tempDir('pay-lib-own-')
    const own = await startSandbox({ dir })
    const status = async (running: Sandbox, key: string) =>
      (await fetch(`${running.baseUrl}/payment-links`, { headers: { Authorization: `Bearer ${key}` } }))
        .status
    try {
      expect(own.keys).toEqual([readSandboxKey(dir)])
      expect([await status(own, own.keys[0]), await status(own, SANDBOX_KEY)]).toEqual([200, 401])
    } finally {
      await own.close()
    }
    const named = await startSandbox({ dir, keys: [SANDBOX_KEY] })
    try {
      expect(await status(named, SANDBOX_KEY)).toBe(200)
    } finally {
      await named.close()
    }
  })

  it('refuses an option it does not take, naming those it takes', async () => {
    await refused(
      { key: ['sk_a'] },
      'startSandbox(options): options has no "key"; it takes dir, keys, port, host, seed, faults, faultSeed, webhooks, account.',
    )
    await refused('sk_a', 'startSandbox(options): options must be an object; got "sk_a".')
  })

  it('refuses a value of the wrong kind for each option', async () => {
    await refused(
      { port: 70000 },
      'startSandbox(options): port must be an integer from 0 to 65535; got 70000.',
    )
    await refused(
      { port: '4010' },
      'startSandbox(options): port must be an integer from 0 to 65535; got "4010".',
    )
    await refused(
      { keys: 'sk_a' },
      'startSandbox(options): keys must be a non-empty array of keys, each text without spaces; got "s…a".',
    )
    await refused(
      { keys: [] },
      'startSandbox(options): keys must be a non-empty array of keys, each text without spaces; got [].',
    )
    await refused(
      { keys: ['sk a'] },
      'startSandbox(options): keys must be a non-empty array of keys, each text without spaces; got ["s…a"].',
    )
    await refused({ host: '' }, 'startSandbox(options): host must be a host name or address; got "".')
    await refused({ dir: 5 }, "startSandbox(options): dir must be a directory's path; got 5.")
    await refused(
      { faults: 'GET /x 503' },
      'startSandbox(options): faults must be an array of rules, each a string ("POST /payment-links 503 x2"); got "GET /x 503".',
    )
    await refused(
      { faultSeed: 1.5 },
      'startSandbox(options): faultSeed must be an integer from 0 to 4294967295; got 1.5.',
    )
    await refused(
      { seed: 7 },
      "startSandbox(options): seed must be a fixture file's name or a fixtures object; got 7.",
    )
    await refused(
      { webhooks: 'http://127.0.0.1:3000/hook' },
      'startSandbox(options): webhooks must be an array of http:// or https:// URLs with no user name or password; got "http://127.0.0.1:3000/hook".',
    )
    await refused(
      { webhooks: ['http://127.0.0.1:3000/hook', 'ftp://x'] },
      'startSandbox(options): webhooks must be an array of http:// or https:// URLs with no user name or password; got ["http://127.0.0.1:3000/hook", "ftp://x"].',
    )
    await refused(
      { webhooks: ['http://shop@127.0.0.1:3000/hook'] },
      'startSandbox(options): webhooks must be an array of http:// or https:// URLs with no user name or password; got ["http://shop@127.0.0.1:3000/hook"].',
    )
  })
})

describe('the account and the pending outcome through the library', () => {
  it('account: given, shown, signed in with; a bad one refused naming what it takes', async () => {
    const account = { email: 'shop@example.com', password: 'p4ss' }
    const own = await startSandbox({ account })
    try {
      expect(own.account).toEqual(account)
      const signed = await fetch(`${own.baseUrl}/api/auth/sign-in`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(account),
      })
      expect(signed.status).toBe(200)
    } finally {
      await own.close()
    }
    await expect(startSandbox({ account: { email: 'nope', password: 'x' } })).rejects.toMatchObject(
      argumentError('startSandbox(options): account.email must be an e-mail address; got "nope".'),
    )
    await expect(
      startSandbox({ account: { email: 'a@b.co' } } as unknown as StartSandboxOptions),
    ).rejects.toMatchObject(
      argumentError('startSandbox(options): account.password must be a non-empty string; got undefined.'),
    )
  })

  it('pay(id, "pending"): the link unpaid, told pending; paying it later pays it', async () => {
    const made = await fetch(`${sandbox.baseUrl}/payment-links`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sk_lib_a', 'Content-Type': 'application/json' },
      body: JSON.stringify(VALID_LINK),
    })
    const id = ((await made.json()) as { data: { _id: string } }).data._id
    expect(sandbox.pay(id, 'pending')).toMatchObject({ outcome: 'pending', link: { paid: false } })
    expect((await link(id)).paid).toBe(false)
    expect(sandbox.pay(id)).toMatchObject({ outcome: 'paid', link: { paid: true } })
  })
})
