import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  deleteKey,
  HELPER_START_TIMEOUT_MS,
  KEYCHAIN_SERVICE,
  KEYCHAIN_TIMEOUT_MS,
  keychainAccount,
  readKeys,
  storeKey,
} from '../../../src/config/keychain.js'
import { reasonOf } from '../../../src/config/keychain-helper.js'
import { cleanEnv, tempDir } from '../../helpers/cli.js'
import { NO_KEYCHAIN_ENV, WORKER_ENV } from '../../helpers/no-keychain.js'

/**
 * keychain.ts runs a helper program per operation; here the helpers are stand-ins written for
 * each test (the real one, on a real Secret Service, is tested end to end in
 * test/e2e/profiles/keychain*.test.ts). Each stand-in first notes its pid, argv, environment
 * and stdin in a file beside it.
 */
function fakeHelper(
  body: string,
  /** When it says it has started, as the real one does with a newline: at once, after a wait, never. */
  { startsAfterMs = 0 as number | 'never' } = {},
): { helper: string; seen: () => Record<string, unknown> } {
  const dir = tempDir('pay-fake-helper-')
  const helper = path.join(dir, 'helper.cjs')
  const record = path.join(dir, 'seen.json')
  let start = ''
  if (startsAfterMs !== 'never') {
    const blocked = `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${startsAfterMs})`
    start = `${startsAfterMs > 0 ? blocked : ''}\nprocess.stdout.write('\\n')`
  }
  fs.writeFileSync(
    helper,
    `const fs = require('node:fs')
${start}
let stdin = ''
process.stdin.setEncoding('utf8').on('data', (c) => { stdin += c }).on('end', () => {
  fs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({ pid: process.pid, argv: process.argv, env: process.env, stdin }))
  const request = JSON.parse(stdin)
  ${body}
})
`,
  )
  return { helper, seen: () => JSON.parse(fs.readFileSync(record, 'utf8')) }
}

/** Whether a process runs (a killed child of this process is reaped by node: then it does not). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const answer = (value: unknown) => `process.stdout.write(${JSON.stringify(JSON.stringify(value))})`

describe('the keychain, through its helper process', () => {
  it('stores a key: sent on stdin, never in argv; the helper runs without NODE_OPTIONS, CA certs or PAY_*', async () => {
    const { helper, seen } = fakeHelper(answer({ ok: true, op: 'store' }))
    const env = {
      ...process.env,
      NODE_OPTIONS: '--max-old-space-size=100',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      RUST_BACKTRACE: '1',
      PAY_API_KEY: 'sk_live_FromTheEnvironment_9',
      PAY_PROFILE: 'live',
    }
    expect(await storeKey('live@/cfg', 'sk_live_StoredKey_0001', { helper, env })).toEqual({ ok: true })
    const {
      argv,
      env: helperEnv,
      stdin,
    } = seen() as {
      argv: string[]
      env: Record<string, string>
      stdin: string
    }
    expect(JSON.parse(stdin)).toEqual({
      op: 'store',
      service: 'pay',
      account: 'live@/cfg',
      key: 'sk_live_StoredKey_0001',
    })
    expect(argv.slice(1)).toEqual([helper])
    expect(helperEnv.NODE_OPTIONS).toBeUndefined()
    expect(helperEnv.NODE_EXTRA_CA_CERTS).toBeUndefined()
    expect(Object.keys(helperEnv).filter((name) => name.startsWith('PAY_'))).toEqual([])
    expect([helperEnv.DBUS_SESSION_BUS_ADDRESS, helperEnv.RUST_BACKTRACE]).toEqual([
      'unix:path=/run/user/1000/bus',
      '0',
    ])
  })

  it('reads keys: only those of the accounts asked for, and only non-empty strings', async () => {
    const { helper, seen } = fakeHelper(
      answer({ ok: true, op: 'read', keys: { a: 'sk_a_1234', b: '', c: 7, other: 'sk_other' } }),
    )
    const read = await readKeys(['a', 'b', 'c', 'd'], { helper, env: process.env })
    expect(read).toEqual({ ok: true, keys: new Map([['a', 'sk_a_1234']]) })
    expect(JSON.parse(seen().stdin as string)).toEqual({
      op: 'read',
      service: 'pay',
      accounts: ['a', 'b', 'c', 'd'],
    })
  })

  it('deletes a key, and tells a deleted entry from none', async () => {
    const deleted = fakeHelper(answer({ ok: true, op: 'delete', deleted: true }))
    expect(await deleteKey('a', { helper: deleted.helper, env: process.env })).toEqual({
      ok: true,
      deleted: true,
    })
    const none = fakeHelper(answer({ ok: true, op: 'delete', deleted: false }))
    expect(await deleteKey('a', { helper: none.helper, env: process.env })).toEqual({
      ok: true,
      deleted: false,
    })
  })

  it("passes on the helper's failure", async () => {
    const { helper } = fakeHelper(answer({ ok: false, reason: 'is locked' }))
    expect(await readKeys(['a'], { helper, env: process.env })).toEqual({ ok: false, reason: 'is locked' })
  })

  it('kills a helper that does not answer in time, blocked as in a native call, and counts it as no keychain', async () => {
    // Atomics.wait blocks the helper's only thread, as a D-Bus call to a peer that never answers does.
    const { helper, seen } = fakeHelper('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)')
    const lines: string[] = []
    const read = await readKeys(['a'], {
      helper,
      timeoutMs: 500,
      debug: (line) => lines.push(line),
      env: process.env,
    })
    expect(read).toEqual({ ok: false, reason: 'did not answer within 0.5 s' })
    expect(lines).toEqual([
      expect.stringMatching(
        /^keychain: read "a": the system keychain did not answer within 0\.5 s \(\d+ ms, service "pay"\)$/,
      ),
    ])
    const { pid } = seen() as { pid: number }
    await expect.poll(() => isAlive(pid)).toBe(false)
  })

  it('counts the time allowed from the start the helper reports: a slow start-up is not a silent keychain', async () => {
    const { helper } = fakeHelper(answer({ ok: true, op: 'read', keys: { a: 'sk_a_1234' } }), {
      startsAfterMs: 1500,
    })
    const read = await readKeys(['a'], { helper, timeoutMs: 500, env: process.env })
    expect(read).toEqual({ ok: true, keys: new Map([['a', 'sk_a_1234']]) })
  })

  it('kills a helper that never reports its start, at the start-up limit', async () => {
    const { helper, seen } = fakeHelper('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)', {
      startsAfterMs: 'never',
    })
    const read = await readKeys(['a'], { helper, timeoutMs: 100, startTimeoutMs: 1500, env: process.env })
    expect(read).toEqual({ ok: false, reason: 'failed (its helper did not start within 1.5 s)' })
    await expect.poll(() => isAlive((seen() as { pid: number }).pid)).toBe(false)
    expect(HELPER_START_TIMEOUT_MS).toBe(10_000)
  })

  it('takes the answer as soon as it is whole, though a process the helper started holds its stdout', async () => {
    const { helper, seen } = fakeHelper(
      `require('node:child_process').spawn('sleep', ['5'], { stdio: ['ignore', 'inherit', 'ignore'], detached: true }).unref()
      process.stdout.write(${JSON.stringify(JSON.stringify({ ok: true, op: 'read', keys: { a: 'sk_a_1234' } }))})
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)`,
    )
    const read = await readKeys(['a'], { helper, timeoutMs: 20_000, env: process.env })
    expect(read).toEqual({ ok: true, keys: new Map([['a', 'sk_a_1234']]) })
    // Answered, then killed: it was blocked for ever after its answer.
    await expect.poll(() => isAlive((seen() as { pid: number }).pid)).toBe(false)
  })

  it.for([
    ['exits without a word', 'process.exit(3)', 'failed (its helper ended with exit code 3 and no answer)'],
    [
      'answers nonsense',
      'process.stdout.write(\'{"ok": tru\')',
      'failed (its helper ended with exit code 0 and no answer)',
    ],
    ['answers another question', answer({ ok: true, op: 'store' }), 'failed (an answer to another question)'],
    [
      'is killed',
      "process.kill(process.pid, 'SIGKILL')",
      'failed (its helper ended with SIGKILL and no answer)',
    ],
  ])('fails cleanly when the helper %s', async ([, body, reason]) => {
    const { helper } = fakeHelper(body)
    expect(await readKeys(['a'], { helper, env: process.env })).toEqual({ ok: false, reason })
  })

  it('fails cleanly when the helper program is missing', async () => {
    const read = await readKeys(['a'], {
      helper: path.join(tempDir(), 'no-such-helper.cjs'),
      env: process.env,
    })
    expect(read).toEqual({ ok: false, reason: 'failed (its helper ended with exit code 1 and no answer)' })
  })

  it('starts no helper when PAY_KEYCHAIN=0', async () => {
    const { helper } = fakeHelper(answer({ ok: true, op: 'store' }))
    const env = { ...process.env, PAY_KEYCHAIN: '0' }
    const off = { ok: false, reason: 'is turned off (PAY_KEYCHAIN=0)', turnedOff: true }
    expect(await storeKey('a', 'sk_live_StoredKey_0001', { helper, env })).toEqual(off)
    expect(await readKeys(['a'], { helper, env })).toEqual(off)
    expect(await deleteKey('a', { helper, env })).toEqual(off)
    expect(fs.existsSync(path.join(path.dirname(helper), 'seen.json'))).toBe(false)
    // Only "0" turns it off.
    expect(
      await storeKey('a', 'sk_live_StoredKey_0001', { helper, env: { ...env, PAY_KEYCHAIN: '1' } }),
    ).toEqual({
      ok: true,
    })
  })

  it('names entries by profile and config directory, under the service "pay", with 3 s to answer', () => {
    expect(keychainAccount('live', '/home/ann/.config/pay')).toBe('live@/home/ann/.config/pay')
    expect([KEYCHAIN_SERVICE, KEYCHAIN_TIMEOUT_MS]).toEqual(['pay', 3000])
  })
})

describe("the helper's reasons", () => {
  it.for([
    [
      'no secret service provider or dbus session found\n\nStack backtrace:\n   0: <unknown>',
      'is not available (no D-Bus session or Secret Service)',
    ],
    ['zbus error: org.freedesktop.Secret.Error.IsLocked: Cannot get secret of a locked object', 'is locked'],
    ["Couldn't access platform storage: Secret Service: unlock prompt was dismissed", 'is locked'],
    ["Couldn't access platform storage: Secret Service: no result found", 'has no keyring to store keys in'],
    ['Something\u001b[31m odd\nline two', 'failed (Something[31m odd)'],
    ['', 'failed (no reason given)'],
  ])('sums up %j as "the system keychain %s"', ([message, reason]) => {
    expect(reasonOf(new Error(message))).toBe(reason)
  })
})

describe('the tests reach no system keychain', () => {
  it('a test worker starts with no keychain in its environment (vitest.config.ts)', () => {
    for (const [name, value] of Object.entries(WORKER_ENV)) expect(process.env[name], name).toBe(value)
  })

  it('a run of pay is given none, whatever the worker has, unless its test says otherwise', () => {
    const env = cleanEnv()
    for (const [name, value] of Object.entries(NO_KEYCHAIN_ENV)) expect(env[name], name).toBe(value)
    if (process.platform === 'linux') expect(Object.keys(env)).not.toContain('XDG_RUNTIME_DIR')
    expect(cleanEnv({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/x' }).DBUS_SESSION_BUS_ADDRESS).toBe(
      'unix:path=/tmp/x',
    )
  })
})
