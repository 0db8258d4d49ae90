import { beforeEach, describe, expect, it, vi } from 'vitest'

/**
 * The helper's logic over a stand-in for @napi-rs/keyring: a store of entries that the test
 * controls, and a record of every native call. (The real module, on a real Secret Service, is
 * tested end to end in test/e2e/profiles/keychain*.test.ts.)
 */
const native = vi.hoisted(() => {
  const state = {
    entries: new Map<string, string>(),
    /** What findCredentials throws, for `times` calls after `skip` answers (then it answers again). */
    failure: undefined as { message: string; times: number; skip?: number } | undefined,
    calls: [] as string[],
  }
  const accountOf = (service: string, account: string) => `${service}\u0000${account}`
  return {
    state,
    module: {
      findCredentials(service: string) {
        state.calls.push(`findCredentials ${service}`)
        if (state.failure?.skip) state.failure.skip -= 1
        else if (state.failure && state.failure.times > 0) {
          state.failure.times -= 1
          throw new Error(state.failure.message)
        }
        return [...state.entries]
          .filter(([id]) => id.startsWith(`${service}\u0000`))
          .map(([id, password]) => ({ account: id.split('\u0000')[1], password }))
      },
      Entry: class {
        constructor(
          private service: string,
          private account: string,
        ) {
          state.calls.push(`new Entry ${service} ${account}`)
        }
        setPassword(password: string) {
          state.entries.set(accountOf(this.service, this.account), password)
        }
        deleteCredential() {
          return state.entries.delete(accountOf(this.service, this.account))
        }
      },
    },
  }
})
vi.mock('@napi-rs/keyring', () => native.module)
// The unit project shares modules between files (isolate: false): another file may have loaded
// the helper over the real module already.
vi.resetModules()

const { respond } = await import('../../../src/config/keychain-helper.js')

const NO_SERVICE = 'no secret service provider or dbus session found'
const KEY = 'sk_live_HelperKey_55aa77cc'

beforeEach(() => {
  native.state.entries.clear()
  native.state.failure = undefined
  native.state.calls.length = 0
})

describe('the keychain helper', () => {
  it('stores, reads back and deletes, under the service asked for', () => {
    expect(respond({ op: 'store', service: 'pay', account: 'live@/cfg', key: KEY })).toEqual({
      ok: true,
      op: 'store',
    })
    expect(respond({ op: 'read', service: 'pay', accounts: ['live@/cfg', 'gone@/cfg'] })).toEqual({
      ok: true,
      op: 'read',
      keys: { 'live@/cfg': KEY },
    })
    expect(respond({ op: 'delete', service: 'pay', account: 'live@/cfg' })).toEqual({
      ok: true,
      op: 'delete',
      deleted: true,
    })
    expect(respond({ op: 'delete', service: 'pay', account: 'live@/cfg' })).toEqual({
      ok: true,
      op: 'delete',
      deleted: false,
    })
  })

  it('with no Secret Service, touches no entry at all (no fallback to the kernel keyring)', () => {
    // @napi-rs/keyring's Entry would quietly keep the key in keyutils: it must never be reached.
    native.state.failure = { message: `${NO_SERVICE}\n\nStack backtrace:\n   0: <unknown>`, times: 99 }
    const unavailable = { ok: false, reason: 'is not available (no D-Bus session or Secret Service)' }
    expect(respond({ op: 'store', service: 'pay', account: 'live@/cfg', key: KEY })).toEqual(unavailable)
    expect(respond({ op: 'read', service: 'pay', accounts: ['live@/cfg'] })).toEqual(unavailable)
    expect(respond({ op: 'delete', service: 'pay', account: 'live@/cfg' })).toEqual(unavailable)
    expect(native.state.calls.filter((call) => call.startsWith('new Entry'))).toEqual([])
    expect(native.state.entries.size).toBe(0)
  })

  it('searches again when an entry vanished while it was being read (another pay deleting one)', () => {
    native.state.entries.set(`pay\u0000live@/cfg`, KEY)
    const vanished =
      'zbus fdo error: org.freedesktop.DBus.Error.UnknownMethod: Object does not exist at path ' +
      '“/org/freedesktop/secrets/collection/login/12”'
    native.state.failure = { message: vanished, times: 3 }
    expect(respond({ op: 'read', service: 'pay', accounts: ['live@/cfg'] })).toEqual({
      ok: true,
      op: 'read',
      keys: { 'live@/cfg': KEY },
    })
    expect(native.state.calls).toEqual(Array(4).fill('findCredentials pay'))
    // Not for ever: ten searches, then the failure is told.
    native.state.failure = { message: vanished, times: 99 }
    const read = respond({ op: 'read', service: 'pay', accounts: ['live@/cfg'] })
    expect(read).toEqual({ ok: false, reason: 'failed (its entries kept changing while pay read them)' })
    expect(native.state.failure.times).toBe(89)
  })

  it('does not search again after other failures', () => {
    native.state.failure = {
      message: 'zbus error: org.freedesktop.Secret.Error.IsLocked: Cannot get secret of a locked object',
      times: 99,
    }
    expect(respond({ op: 'read', service: 'pay', accounts: ['a'] })).toEqual({
      ok: false,
      reason: 'is locked',
    })
    expect(native.state.calls).toEqual(['findCredentials pay'])
  })

  it('withholds a failure message that quotes part of the key being stored', () => {
    // The search after storing fails, quoting 8 characters of the key.
    native.state.failure = { message: `bad secret ${KEY.slice(10, 18)}`, times: 1, skip: 1 }
    expect(respond({ op: 'store', service: 'pay', account: 'a', key: KEY })).toEqual({
      ok: false,
      reason: 'failed (its message withheld)',
    })
  })
})
