import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_SANDBOX_PORT, SANDBOX_KEY } from '../../../../src/sandbox/constants.js'
import { keyHash } from '../../../../src/sandbox/domain/business.js'
import { settleLinkIn } from '../../../../src/sandbox/handlers/notify/local.js'
import { startSandbox } from '../../../../src/sandbox/http/server.js'
import { resetSandbox } from '../../../../src/sandbox/store/local.js'
import { MIGRATIONS } from '../../../../src/sandbox/store/schema.js'
import { sandboxDir } from '../../../../src/shared/sandbox-dir.js'
import { readSandboxKey } from '../../../../src/shared/sandbox-key.js'
import {
  KEY_A,
  KEY_B,
  readStore,
  setUserVersion,
  startTestSandbox,
  type TestSandbox,
  tempDir,
  VALID_LINK,
  VALID_TOKEN,
} from '../../../helpers/sandbox.js'

const running: TestSandbox[] = []
const start = async (dir?: string) => {
  const sandbox = await startTestSandbox({ dir })
  running.push(sandbox)
  return sandbox
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.sandbox.close()))
})

describe('constants', () => {
  it('has a well-known key and port', () => {
    expect(SANDBOX_KEY).toMatch(/^sk_sandbox_[0-9a-z]{24}$/)
    expect(DEFAULT_SANDBOX_PORT).toBe(4010)
  })

  it('finds the store dir: PAY_SANDBOX_DIR, else XDG_DATA_HOME, else ~/.local/share', () => {
    expect(sandboxDir({ PAY_SANDBOX_DIR: '/srv/sbx', XDG_DATA_HOME: '/xdg', HOME: '/home/u' })).toBe(
      '/srv/sbx',
    )
    expect(sandboxDir({ XDG_DATA_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/pay/sandbox')
    expect(sandboxDir({ XDG_DATA_HOME: 'relative', HOME: '/home/u' })).toBe(
      '/home/u/.local/share/pay/sandbox',
    )
    expect(sandboxDir({ HOME: '/home/u' })).toBe('/home/u/.local/share/pay/sandbox')
    expect(sandboxDir({ PAY_SANDBOX_DIR: '', HOME: '/home/u' })).toBe('/home/u/.local/share/pay/sandbox')
  })
})

describe('the store file', () => {
  it('is created 0600 (with its WAL files) in a 0700 dir, and holds no raw key', async () => {
    const dir = path.join(tempDir(), 'nested', 'sandbox')
    const t = await start(dir)
    await t.a.call('POST', '/payment-links', VALID_LINK)
    await t.b.call('POST', '/payment-links', VALID_LINK)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    // proof.secret: what the sandbox proves it is the user's own with (test/unit/sandbox/http/proof.test.ts).
    expect(fs.readdirSync(dir).sort()).toEqual(['proof.secret', 'store.db', 'store.db-shm', 'store.db-wal'])
    for (const name of fs.readdirSync(dir)) {
      expect(fs.statSync(path.join(dir, name)).mode & 0o777, name).toBe(0o600)
      const bytes = fs.readFileSync(path.join(dir, name))
      expect(bytes.includes(KEY_A), name).toBe(false)
      expect(bytes.includes(KEY_B), name).toBe(false)
    }
    expect(Object.keys(readStore(dir).businesses)).toHaveLength(2)
    expect(t.sandbox.database).toBe(path.join(dir, 'store.db'))
  })

  it('keeps records across a restart', async () => {
    const first = await start()
    const link = (await first.a.call('POST', '/payment-links', VALID_LINK)).json.data
    await first.sandbox.close()
    const second = await start(first.dir)
    expect((await second.a.call('GET', `/payment-links/${link._id}`)).json.data).toEqual(link)
  })

  it.each([
    ['of 9,400 bytes', '{"format": "pay-sandbox-store", "businesses": {'.repeat(200)],
    // Shorter than SQLite's header: SQLite alone would take it for an empty database and write over it.
    ['of 8 bytes', 'garbage\n'],
  ])(
    'refuses a file that is no database (%s), naming it, leaves it untouched, and reset sets it aside',
    async (_, garbage) => {
      const dir = tempDir()
      const file = path.join(dir, 'store.db')
      fs.writeFileSync(file, garbage)
      const message = `The sandbox store ${file} is corrupt (file is not a database). It was left untouched; "pay sandbox reset" sets it aside and starts an empty one.`
      await expect(startSandbox({ dir, port: 0 })).rejects.toThrow(message)
      expect(() => settleLinkIn(dir, '000000000000000000000000', 'paid')).toThrow(message)
      expect(fs.readFileSync(file, 'utf8')).toBe(garbage)

      expect(resetSandbox(dir)).toEqual({ keptAs: `${file}.corrupt` })
      expect(fs.readFileSync(`${file}.corrupt`, 'utf8')).toBe(garbage)
      const t = await start(dir)
      const answer = await t.a.call('GET', '/payment-links')
      expect(answer.status).toBe(200)
      expect(answer.json.data.total).toBe(0)
      expect((await t.a.call('POST', '/payment-links', VALID_LINK)).status).toBe(200)
    },
  )

  it('refuses a database of a newer pay (a later schema version), and reset sets it aside', async () => {
    const dir = tempDir()
    const t = await start(dir)
    await t.a.call('POST', '/payment-links', VALID_LINK)
    await t.sandbox.close()
    setUserVersion(path.join(dir, 'store.db'), MIGRATIONS.length + 1)
    await expect(startSandbox({ dir, port: 0 })).rejects.toThrow(
      `The sandbox store ${path.join(dir, 'store.db')} was written by a newer pay (schema version ${MIGRATIONS.length + 1}; this pay knows up to ${MIGRATIONS.length}).`,
    )
    expect(resetSandbox(dir).keptAs).toBe(path.join(dir, 'store.db.corrupt'))
    const again = await start(dir)
    expect((await again.a.call('GET', '/payment-links')).json.data.total).toBe(0)
  })
})

describe('unexpected failures', () => {
  it('answers 500 with a JSON message when the store dir vanished, and keeps serving', async () => {
    const t = await start()
    fs.rmSync(t.dir, { recursive: true })
    const answer = await t.a.call('POST', '/payment-links', VALID_LINK)
    expect(answer.status).toBe(500)
    expect(answer.headers.get('content-type')).toBe('application/json')
    expect(answer.json.message).toMatch(/^Internal sandbox error: ENOENT/)
    expect((await t.a.call('GET', '/_sandbox/health')).status).toBe(200)
    fs.mkdirSync(t.dir)
    expect((await t.a.call('POST', '/payment-links', VALID_LINK)).status).toBe(200)
    // The new database is where the sandbox says it is, not a file that was deleted.
    expect(readStore(t.dir).businesses[keyHash(KEY_A)].payment_links).not.toEqual({})
  })
})

describe('resetSandbox', () => {
  it('empties the store for a running sandbox too; seeded packages stay', async () => {
    const t = await start()
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    const packageId = t.sandbox.packages[KEY_A][0]._id
    await t.a.call('POST', '/subscriptions', { package_id: packageId, email: 'a@example.com' })
    await t.b.call('POST', '/tokenizations/create-token', VALID_TOKEN)
    expect(resetSandbox(t.dir)).toEqual({ keptAs: undefined })
    expect((await t.a.call('GET', `/payment-links/${link._id}`)).status).toBe(404)
    expect((await t.a.call('GET', '/subscriptions')).json.data.total).toBe(0)
    expect(readStore(t.dir).businesses).toEqual({})
    // Nothing but the database and the sandbox's secret, which a reset keeps (a running server still proves with it).
    expect(fs.readdirSync(t.dir).filter((name) => !name.startsWith('store.db'))).toEqual(['proof.secret'])
    const again = await t.a.call('POST', '/subscriptions', { package_id: packageId, email: 'a@example.com' })
    expect(again.status).toBe(200)
    expect((await t.a.call('GET', '/subscriptions')).json.data.total).toBe(1)
  })

  it('adds the business again at its first write after a reset: a link, a token, a POST with an Idempotency-Key', async () => {
    const t = await start()
    await t.a.call('POST', '/payment-links', VALID_LINK)
    await t.b.call('POST', '/payment-links', VALID_LINK)
    expect(resetSandbox(t.dir)).toEqual({ keptAs: undefined })
    const link = await t.a.call('POST', '/payment-links', VALID_LINK)
    expect(link.status).toBe(200)
    const token = await t.b.call('POST', '/tokenizations/create-token', VALID_TOKEN)
    expect(token.status).toBe(200)
    const keyed = await t.b.call('POST', '/payment-links', VALID_LINK, { 'Idempotency-Key': 'after-reset' })
    expect(keyed.status).toBe(200)
    const again = await t.b.call('POST', '/payment-links', VALID_LINK, { 'Idempotency-Key': 'after-reset' })
    expect(again.json.data._id).toBe(keyed.json.data._id)
    expect((await t.a.call('GET', '/payment-links')).json.data.total).toBe(1)
    expect((await t.b.call('GET', '/payment-links')).json.data.total).toBe(1)
    const businesses = Object.values(readStore(t.dir).businesses)
    expect(businesses.map((b) => Object.keys(b.payment_links).length).sort()).toEqual([1, 1])
    expect(businesses.map((b) => Object.keys(b.tokenizations).length).sort()).toEqual([0, 1])
  })

  it('creates a missing dir', () => {
    const dir = path.join(tempDir(), 'absent')
    resetSandbox(dir)
    expect(readStore(dir).businesses).toEqual({})
  })
})

describe('settleLinkIn: paying on the local store', () => {
  it('sets paid and moves updated_at, whichever business owns the link', async () => {
    const t = await start()
    const link = (await t.b.call('POST', '/payment-links', VALID_LINK)).json.data
    const paid = settleLinkIn(t.dir, link._id, 'paid')?.link
    expect(paid).toEqual({ ...link, paid: true, updated_at: paid?.updated_at })
    expect(paid!.updated_at > link.updated_at).toBe(true)
    expect((await t.b.call('GET', `/payment-links/${link._id}`)).json.data).toEqual(paid)
    expect(settleLinkIn(t.dir, link._id, 'paid')?.link).toEqual(paid)
  })

  it('returns undefined for an unknown link', async () => {
    const t = await start()
    expect(settleLinkIn(t.dir, '000000000000000000000000', 'paid')).toBeUndefined()
    expect(settleLinkIn(t.dir, 'constructor', 'paid')).toBeUndefined()
  })
})

describe('two sandboxes on one dir', () => {
  it('lose nothing when writers interleave on both, and each sees the other’s writes', async () => {
    const one = await start()
    const two = await start(one.dir)
    const writers = Array.from({ length: 40 }, (_, i) => {
      const client = i % 2 ? one.a : two.a
      return client.call('POST', '/payment-links', { ...VALID_LINK, reference: `w${i}` })
    })
    const answers = await Promise.all(writers)
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200))
    for (const t of [one, two]) {
      const list = (await t.a.call('GET', '/payment-links?per_page=500')).json.data
      expect(list.total).toBe(40)
      expect(new Set(list.data.map((link: { reference: string }) => link.reference)).size).toBe(40)
    }
    const link = answers[0].json.data
    await one.a.call('PUT', `/payment-links/${link._id}`, { ...VALID_LINK, title: 'changed on one' })
    expect((await two.a.call('GET', `/payment-links/${link._id}`)).json.data.title).toBe('changed on one')
  })

  it('binds to loopback by default and reports its keys: given none, its directory’s own, never the well-known one', async () => {
    const dir = tempDir()
    const sandbox = await startSandbox({ dir })
    try {
      expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const own = readSandboxKey(dir) as string
      expect(own).toMatch(/^sk_sandbox_[0-9a-f]{32}$/)
      expect(sandbox.keys).toEqual([own])
      expect(Object.keys(sandbox.packages)).toEqual([own])
      const answer = await fetch(`${sandbox.baseUrl}/payment-links`, {
        headers: { Authorization: `Bearer ${SANDBOX_KEY}` },
      })
      expect(answer.status).toBe(401)
    } finally {
      await sandbox.close()
    }
  })

  it('refuses an empty key list and keys with whitespace', async () => {
    await expect(startSandbox({ dir: tempDir(), keys: [] })).rejects.toThrow('at least one API key')
    await expect(startSandbox({ dir: tempDir(), keys: ['a b'] })).rejects.toThrow('no whitespace')
  })
})
