import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { cachedIds, type IdChanges, idCacheFile, MAX_IDS, rememberIds } from '../../../src/config/id-cache.js'
import { tempDir } from '../../helpers/cli.js'
import { modeOf } from '../../helpers/config-files.js'

/**
 * The cache of the ids pay has shown, per profile, that completion reads (no request sent):
 * bounded, private, per profile, never through a symbolic link, and a damaged file starts again.
 */

const env = () => ({ PAY_CACHE_DIR: path.join(tempDir('pay-ids-'), 'cache', 'pay') })
const changes = (
  seen: Partial<Record<'links' | 'subscriptions', string[]>>,
  gone: typeof seen = {},
): IdChanges => ({
  seen: { links: seen.links ?? [], subscriptions: seen.subscriptions ?? [] },
  gone: { links: gone.links ?? [], subscriptions: gone.subscriptions ?? [] },
})

describe('the id cache', () => {
  it('keeps the newest first, each once, per kind and per profile', () => {
    const e = env()
    rememberIds(e, 'live', changes({ links: ['l1', 'l2'], subscriptions: ['s1'] }))
    rememberIds(e, 'live', changes({ links: ['l3', 'l1'] }))
    rememberIds(e, 'sandbox', changes({ links: ['x1'] }))
    expect(cachedIds(e, 'live', 'links')).toEqual(['l3', 'l1', 'l2'])
    expect(cachedIds(e, 'live', 'subscriptions')).toEqual(['s1'])
    expect(cachedIds(e, 'sandbox', 'links')).toEqual(['x1'])
    expect(cachedIds(e, 'other', 'links')).toEqual([])
    expect(idCacheFile(e, 'live')).toBe(path.join(e.PAY_CACHE_DIR, 'ids', 'live.json'))
  })

  it('forgets what was deleted', () => {
    const e = env()
    rememberIds(e, 'live', changes({ links: ['l1', 'l2', 'l3'], subscriptions: ['s1'] }))
    rememberIds(e, 'live', changes({}, { links: ['l2'], subscriptions: ['s1'] }))
    expect([cachedIds(e, 'live', 'links'), cachedIds(e, 'live', 'subscriptions')]).toEqual([['l1', 'l3'], []])
  })

  it(`is bounded: the newest ${MAX_IDS} of each kind`, () => {
    const e = env()
    const many = (from: number) => Array.from({ length: 800 }, (_, i) => `id${from + i}`)
    rememberIds(e, 'live', changes({ links: many(0) }))
    rememberIds(e, 'live', changes({ links: many(800) }))
    const kept = cachedIds(e, 'live', 'links')
    expect(kept).toHaveLength(MAX_IDS)
    expect([kept[0], kept[799], kept[800], kept[999]]).toEqual(['id800', 'id1599', 'id0', 'id199'])
    expect(fs.statSync(idCacheFile(e, 'live') as string).size).toBeLessThan(60_000)
  })

  it('is 0600 in 0700 directories, a looser directory tightened', () => {
    const e = env()
    rememberIds(e, 'live', changes({ links: ['l1'] }))
    const file = idCacheFile(e, 'live') as string
    expect([modeOf(file), modeOf(path.dirname(file)), modeOf(e.PAY_CACHE_DIR)]).toEqual([0o600, 0o700, 0o700])
    fs.chmodSync(path.dirname(file), 0o755)
    rememberIds(e, 'live', changes({ links: ['l2'] }))
    expect(modeOf(path.dirname(file))).toBe(0o700)
  })

  it('a damaged file, or ids of no id shape in it, start again; nothing throws', () => {
    const e = env()
    rememberIds(e, 'live', changes({ links: ['l1'] }))
    const file = idCacheFile(e, 'live') as string
    for (const text of ['{"links": [', 'null', '[]', '{"links": "l1"}', '\u0000\u0001']) {
      fs.writeFileSync(file, text)
      expect(cachedIds(e, 'live', 'links')).toEqual([])
    }
    fs.writeFileSync(
      file,
      JSON.stringify({ links: ['ok-1', '$(rm -rf ~)', 'a b', 7, 'x'.repeat(65), 'ok-1', 'ok_2'] }),
    )
    expect(cachedIds(e, 'live', 'links')).toEqual(['ok-1', 'ok_2'])
    rememberIds(e, 'live', changes({ links: ['l9'] }))
    expect(cachedIds(e, 'live', 'links')).toEqual(['l9', 'ok-1', 'ok_2'])
  })

  it('follows no symbolic link: not at the file, not at its directory', () => {
    const e = env()
    const elsewhere = tempDir('pay-ids-elsewhere-')
    const target = path.join(elsewhere, 'target.json')
    fs.writeFileSync(target, JSON.stringify({ links: ['planted'] }))
    fs.mkdirSync(path.join(e.PAY_CACHE_DIR, 'ids'), { recursive: true, mode: 0o700 })
    const file = idCacheFile(e, 'live') as string
    fs.symlinkSync(target, file)
    expect(cachedIds(e, 'live', 'links')).toEqual([])
    rememberIds(e, 'live', changes({ links: ['l1'] }))
    expect([fs.readFileSync(target, 'utf8'), fs.lstatSync(file).isSymbolicLink()]).toEqual([
      JSON.stringify({ links: ['planted'] }),
      true,
    ])
    // The directory itself a link to another's: neither read nor written.
    const e2 = env()
    fs.mkdirSync(e2.PAY_CACHE_DIR, { recursive: true, mode: 0o700 })
    fs.symlinkSync(elsewhere, path.join(e2.PAY_CACHE_DIR, 'ids'))
    fs.writeFileSync(path.join(elsewhere, 'live.json'), JSON.stringify({ links: ['planted'] }))
    expect(cachedIds(e2, 'live', 'links')).toEqual([])
    rememberIds(e2, 'live', changes({ links: ['l1'] }))
    expect(fs.readFileSync(path.join(elsewhere, 'live.json'), 'utf8')).toBe(
      JSON.stringify({ links: ['planted'] }),
    )
  })

  it('keeps nothing with PAY_ID_CACHE=0, for no profile, or a name no profile has', () => {
    const e = { ...env(), PAY_ID_CACHE: '0' }
    rememberIds(e, 'live', changes({ links: ['l1'] }))
    expect(fs.existsSync(e.PAY_CACHE_DIR)).toBe(false)
    const on = env()
    for (const name of [undefined, '../up', '.hidden', 'a/b'])
      rememberIds(on, name, changes({ links: ['l1'] }))
    expect(fs.existsSync(on.PAY_CACHE_DIR)).toBe(false)
  })
})
