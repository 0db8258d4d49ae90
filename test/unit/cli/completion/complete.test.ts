import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  complete,
  fishCandidates,
  idsToComplete,
  loadCommandMap,
} from '../../../../src/cli/completion/complete.js'
import { rememberIds } from '../../../../src/config/id-cache.js'
import { ROOT, tempDir } from '../../../helpers/cli.js'
import { writeConfig } from '../../../helpers/config-files.js'
import { MANIFEST } from '../../../helpers/manifest.js'

/**
 * What <TAB> completes (`pay __complete`): read from the manifest and the id cache of the
 * profile the command line names, else PAY_PROFILE, else the current one; ids only where a
 * command takes one.
 */

const map = loadCommandMap(ROOT)
const LIVE = ['aa11', 'aa22', 'bb33']
const SUBS = ['5111', '5222']

function env(current?: string) {
  const root = tempDir('pay-complete-')
  const e = { PAY_CACHE_DIR: path.join(root, 'cache'), PAY_CONFIG_DIR: path.join(root, 'config') }
  const none = { links: [], subscriptions: [] }
  rememberIds(e, 'live', { seen: { links: LIVE, subscriptions: SUBS }, gone: none })
  rememberIds(e, 'sandbox', { seen: { links: ['5a0d'], subscriptions: [] }, gone: none })
  if (current)
    writeConfig(e.PAY_CONFIG_DIR, { current, profiles: { live: { api_key: 'k', base_url: 'https://x' } } })
  return e
}

describe('ids to complete (bash and zsh)', () => {
  it('every command that takes an id, from the cache of the current profile, filtered by what was typed', () => {
    const e = env('live')
    // Every command of links and subs whose argument is an id, aliases too (from the manifest).
    const cached: Record<string, string[]> = { links: LIVE, subs: SUBS }
    const takingIds = Object.values(MANIFEST.commands).filter(
      (command) => command.args.id && command.id.split(':')[0] in cached,
    )
    expect(takingIds.length).toBeGreaterThan(8)
    for (const command of takingIds)
      for (const id of [command.id, ...command.aliases]) {
        const words = id.split(':')
        expect([id, idsToComplete([...words, ''], e, map)]).toEqual([id, cached[words[0]]])
      }
    expect(idsToComplete(['links', 'get', 'AA'], e, map)).toEqual(['aa11', 'aa22'])
  })

  it('the profile named on the line (before or after the command, any form), else PAY_PROFILE, else the current', () => {
    const e = env('live')
    expect(idsToComplete(['-p', 'sandbox', 'links', 'get', ''], e, map)).toEqual(['5a0d'])
    expect(idsToComplete(['--profile=sandbox', 'links', 'get', ''], e, map)).toEqual(['5a0d'])
    expect(idsToComplete(['links', 'get', '--profile', '=', 'sandbox', ''], e, map)).toEqual(['5a0d'])
    expect(idsToComplete(['links', 'get', '-psandbox', ''], e, map)).toEqual(['5a0d'])
    expect(idsToComplete(['links', 'get', ''], { ...e, PAY_PROFILE: 'sandbox' }, map)).toEqual(['5a0d'])
    // sandbox pay's profile is the built-in one unless named.
    expect(idsToComplete(['sandbox', 'pay', ''], e, map)).toEqual(['5a0d'])
    // No current profile, no config at all: nothing.
    expect(idsToComplete(['links', 'get', ''], env(), map)).toEqual([])
  })

  it('not a flag, nor a flag’s value; one id for a one-id command, any not yet given for the others', () => {
    const e = env('live')
    expect(idsToComplete(['links', 'get', '--'], e, map)).toBeUndefined()
    expect(idsToComplete(['links', 'qr', '--output', ''], e, map)).toBeUndefined()
    expect(idsToComplete(['links', 'delete', '-f', ''], e, map)).toBeUndefined()
    expect(idsToComplete(['links', 'delete', '--report=x.csv', ''], e, map)).toEqual(LIVE)
    expect(idsToComplete(['links', 'update', '--title', 'New', ''], e, map)).toEqual(LIVE)
    expect(idsToComplete(['links', 'get', 'aa11', ''], e, map)).toEqual([])
    expect(idsToComplete(['links', 'delete', 'aa11', '--yes', ''], e, map)).toEqual(['aa22', 'bb33'])
    expect(idsToComplete(['links', 'list', ''], e, map)).toBeUndefined()
    expect(idsToComplete(['links', ''], e, map)).toBeUndefined()
    expect(idsToComplete([''], e, map)).toBeUndefined()
  })

  it('`pay __complete ids -- …`: the ids a line, exit 0; exit 1 where no id goes; exit 2 when misused', () => {
    const e = env('live')
    expect(complete(['ids', '--', 'links', 'get', 'a'], e, () => map)).toEqual({
      text: 'aa11\naa22\n',
      code: 0,
    })
    expect(complete(['ids', '--', 'links', 'list', ''], e, () => map)).toEqual({ text: '', code: 1 })
    expect(complete(['zsh', '--', 'links'], e, () => map)).toEqual({ text: '', code: 2 })
  })
})

describe('fish: everything, with descriptions', () => {
  const e = env('live')
  const values = (words: string[]) => {
    const found = fishCandidates(words, e, map)
    return found === 'files' ? found : found.map((candidate) => candidate.value)
  }

  it('topics and commands at their depth, with what they are', () => {
    expect(values([''])).toEqual(
      expect.arrayContaining(['api', 'autocomplete', 'history', 'links', 'sandbox', 'subs']),
    )
    // The commands of a topic, from the manifest (aliases are not offered).
    const verbsOf = (topic: string) =>
      Object.keys(MANIFEST.commands)
        .filter((id) => id.startsWith(`${topic}:`) && id.split(':').length === topic.split(':').length + 1)
        .map((id) => id.split(':').at(-1))
        .sort()
    expect(verbsOf('links')).toEqual(expect.arrayContaining(['create', 'get', 'list', 'delete']))
    expect(values(['-p', 'sandbox', 'links', ''])).toEqual(verbsOf('links'))
    expect(values(['sandbox', 'snapshot', ''])).toEqual(verbsOf('sandbox:snapshot'))
    const links = fishCandidates([''], e, map)
    expect(links !== 'files' && links.find((c) => c.value === 'links')?.description).toBe(
      'Create, find, change and delete payment links',
    )
  })

  it('flags of the command (long, short, --no-), a flag’s values, ids, and paths where files go', () => {
    expect(values(['links', 'list', '--'])).toEqual(
      expect.arrayContaining(['--search', '--sort', '--no-paid', '-q', '--format']),
    )
    expect(values(['links', 'list', '--format', ''])).toEqual(['csv'])
    expect(values(['links', 'get', ''])).toEqual(LIVE)
    expect(values(['subs', 'cancel', '--from-file', ''])).toBe('files')
    expect(values(['sandbox', 'seed', ''])).toBe('files')
    expect(values(['sandbox', 'start', '--seed', ''])).toBe('files')
    // A value that is no file: nothing to offer (not the file names of the directory).
    expect(values(['links', 'list', '--status', ''])).toEqual([])
    expect(values(['api', ''])).toEqual([])
    // A command that is also a topic offers its own commands; the longest command is the one typed.
    expect(values(['sandbox', 'clock', ''])).toEqual(['advance', 'set'])
    expect(values(['sandbox', 'clock', 'advance', ''])).toEqual([])
    expect(values(['-p', 'sandbox', 'links', 'rm', '--yes', ''])).toEqual(['5a0d'])
    // fish filters (and matches fuzzily) itself: the candidates come whole, with their descriptions.
    expect(complete(['fish', '--', 'links', 'g'], e, () => map).text).toContain(
      '\nget\tShow one payment link\n',
    )
    expect(complete(['fish', '--', 'links', 'qr', '--output', ''], e, () => map)).toEqual({
      text: '',
      code: 3,
    })
  })
})
