import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Journal, journalFile, journalLines, readJournal } from '../../../src/config/journal.js'
import { changesFrom, sinceMoment } from '../../../src/work/history/history.js'
import { tempDir } from '../../helpers/cli.js'

const CONTEXT = {
  command: 'pay links delete',
  profile: 'live',
  baseUrl: 'https://pay.example',
  terminal: true,
}

describe('journalFile', () => {
  it('is PAY_JOURNAL_FILE, else journal.jsonl in the data dir; PAY_JOURNAL=0 turns it off', () => {
    expect(journalFile({ PAY_JOURNAL_FILE: '/srv/j.jsonl', HOME: '/home/u' })).toBe('/srv/j.jsonl')
    expect(journalFile({ XDG_DATA_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/pay/journal.jsonl')
    expect(journalFile({ HOME: '/home/u' })).toBe('/home/u/.local/share/pay/journal.jsonl')
    expect(journalFile({ PAY_JOURNAL: '0', PAY_JOURNAL_FILE: '/srv/j.jsonl' })).toBeUndefined()
  })
})

describe('Journal', () => {
  it('writes the intent, then the outcome, paired, in a 0600 file in a 0700 directory', () => {
    const file = path.join(tempDir(), 'pay', 'journal.jsonl')
    const journal = new Journal(file, CONTEXT, () => {})
    const finish = journal.intent({
      method: 'DELETE',
      path: '/payment-links/l1',
      resource: 'payment link',
      id: 'l1',
    })
    const [intent] = readJournal(file)
    expect(intent).toMatchObject({
      phase: 'intent',
      command: 'pay links delete',
      profile: 'live',
      base_url: 'https://pay.example',
      method: 'DELETE',
      path: '/payment-links/l1',
      resource: 'payment link',
      id: 'l1',
      terminal: true,
    })
    finish({ status: 200 })
    const [, outcome] = readJournal(file)
    expect(outcome).toMatchObject({ phase: 'outcome', change: intent.change, id: 'l1', status: 200 })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
  })

  it("keeps its file open for the run: a file moved aside keeps the run's lines; after close() a new one is made", () => {
    const dir = tempDir()
    const file = path.join(dir, 'journal.jsonl')
    const journal = new Journal(file, CONTEXT, () => {})
    const finish = journal.intent({ method: 'PUT', path: '/subscriptions/s1', resource: 'subscription' })
    fs.renameSync(file, path.join(dir, 'rotated.jsonl'))
    finish({ status: 200 })
    expect(readJournal(path.join(dir, 'rotated.jsonl')).map((entry) => entry.phase)).toEqual([
      'intent',
      'outcome',
    ])
    expect(fs.existsSync(file)).toBe(false)
    journal.close()
    journal.intent({ method: 'PUT', path: '/subscriptions/s2', resource: 'subscription' })
    expect(readJournal(file).map((entry) => entry.path)).toEqual(['/subscriptions/s2'])
    journal.close()
  })

  it('starts each entry on a line of its own, whatever another writer left between two of its entries', () => {
    const file = path.join(tempDir(), 'journal.jsonl')
    const journal = new Journal(file, CONTEXT, () => {})
    const entry = (id: string) =>
      journal.intent({ method: 'PUT', path: `/subscriptions/${id}`, resource: 'subscription' })
    /** Each line: the path of the entry it holds, else the line itself. */
    const lines = () =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => {
          try {
            return JSON.parse(line).path ?? line
          } catch {
            return line
          }
        })
    entry('s1')
    fs.appendFileSync(file, '{"at":"torn')
    entry('s2')
    fs.appendFileSync(file, '{"whole":"line"}\n')
    entry('s3')
    expect(lines()).toEqual([
      '/subscriptions/s1',
      '{"at":"torn',
      '/subscriptions/s2',
      '{"whole":"line"}',
      '/subscriptions/s3',
      '',
    ])
    // Shrunk to a cut inside its last entry.
    fs.truncateSync(file, fs.statSync(file).size - 10)
    entry('s4')
    expect(lines().slice(4, 5)[0]).toMatch(/^\{"at":.*subscriptions\/s3/)
    expect(lines().slice(5)).toEqual(['/subscriptions/s4', ''])
    fs.truncateSync(file, 0)
    entry('s5')
    fs.appendFileSync(file, 'x')
    entry('s6')
    entry('s7')
    // Its last byte written over (the same size, no newline at the end).
    fs.truncateSync(file, fs.statSync(file).size - 1)
    fs.appendFileSync(file, 'y')
    entry('s8')
    journal.close()
    const last = lines()
    expect(last.slice(0, 3)).toEqual(['/subscriptions/s5', 'x', '/subscriptions/s6'])
    expect(last[3]).toMatch(/subscriptions\/s7.*y$/)
    expect(last.slice(4)).toEqual(['/subscriptions/s8', ''])
  })

  it('says once that it cannot write, and lets the change go on', () => {
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, 'pay'), 'a file where the directory should be')
    const warnings: string[] = []
    const journal = new Journal(path.join(dir, 'pay', 'journal.jsonl'), CONTEXT, (m) => warnings.push(m))
    journal.intent({ method: 'PUT', path: '/x', resource: 'subscription' })({ status: 200 })
    journal.intent({ method: 'PUT', path: '/y', resource: 'subscription' })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^Could not write the journal .*journal\.jsonl \(EEXIST\); the changes of this run go unrecorded\./,
    )
  })
  it('never adds to a journal another name links to (a hard link someone planted): one warning, that file untouched', () => {
    const dir = tempDir()
    const planted = path.join(dir, 'theirs.log')
    fs.writeFileSync(planted, 'theirs\n')
    const file = path.join(dir, 'journal.jsonl')
    fs.linkSync(planted, file)
    const warnings: string[] = []
    const journal = new Journal(file, CONTEXT, (m) => warnings.push(m))
    journal.intent({ method: 'DELETE', path: '/payment-links/l1', resource: 'payment link', id: 'l1' })({
      status: 200,
    })
    expect(warnings).toEqual([
      `Could not write the journal ${file} (another name links to the same file); the changes of this run go unrecorded. ` +
        'PAY_JOURNAL_FILE moves it, PAY_JOURNAL=0 turns it off.',
    ])
    expect(fs.readFileSync(planted, 'utf8')).toBe('theirs\n')
  })
})

describe('journalLines', () => {
  it('reads every entry it can, counting the lines it cannot; an entry glued onto a torn line is found', () => {
    const entry = (change: string) =>
      JSON.stringify({ at: '2026-11-01T00:00:00.000Z', phase: 'intent', change })
    const text = [
      entry('a'),
      entry('b').slice(0, 30) + entry('c'),
      'not json',
      '',
      '{"other":1}',
      entry('d'),
    ].join('\n')
    const read = journalLines(text)
    expect(read.entries.map((e) => e.change)).toEqual(['a', 'c', 'd'])
    expect(read.unreadable).toBe(3)
    expect(journalLines(`${entry('a')}\n\n`)).toEqual({ entries: [JSON.parse(entry('a'))], unreadable: 0 })
  })
})

describe('changesFrom', () => {
  it('pairs each intent with its outcome, newest first; an intent alone is unknown; a torn line is left out', () => {
    const file = path.join(tempDir(), 'journal.jsonl')
    const journal = new Journal(file, CONTEXT, () => {})
    journal.intent({
      method: 'POST',
      path: '/payment-links',
      resource: 'payment link',
      idempotencyKey: 'k1',
    })({
      status: 200,
      id: 'l9',
    })
    journal.intent({ method: 'PUT', path: '/subscriptions/s1', resource: 'subscription', id: 's1' })({
      status: 422,
      error: 'validation',
    })
    journal.intent({ method: 'DELETE', path: '/payment-links/l2', resource: 'payment link', id: 'l2' })
    fs.appendFileSync(file, '{"at":"2026-11-23T00:00:00.000Z","phase":"outco')
    const changes = changesFrom(readJournal(file))
    expect(changes.map((change) => [change.method, change.id, change.outcome])).toEqual([
      ['DELETE', 'l2', 'unknown'],
      ['PUT', 's1', 'failed validation 422'],
      ['POST', 'l9', 'done 200'],
    ])
    expect(changes[2]).toMatchObject({ idempotency_key: 'k1', status: 200 })
  })

  it('settles a change left open by what a later run found: same kind, path and service, found after it', () => {
    const file = path.join(tempDir(), 'journal.jsonl')
    const at = (command: string, more: Partial<typeof CONTEXT> = {}) =>
      new Journal(file, { ...CONTEXT, command, ...more }, () => {})
    const put = (id: string) => ({
      method: 'PUT',
      path: `/subscriptions/${id}`,
      resource: 'subscription',
      id,
    })
    const cancel = at('pay subs cancel')
    // Found before the change was sent: no answer to it.
    cancel.found(put('s0'), 'cancelled')
    cancel.intent(put('s0'))
    cancel.intent(put('s1'))
    cancel.intent(put('s2'))({ status: 503, error: 'unavailable' })
    cancel.intent(put('s3'))({ status: 200 })
    // An update of another kind to the same path is not what a cancel found settles.
    at('pay subs update').intent(put('s4'))
    // Another service's run finds nothing of this one's.
    at('pay subs cancel', { baseUrl: 'https://other.example' }).intent(put('s5'))
    const resume = at('pay subs cancel')
    for (const id of ['s1', 's2', 's3', 's4', 's5']) resume.found(put(id), 'cancelled')
    at('pay links delete').found(
      { method: 'DELETE', path: '/payment-links/l1', resource: 'payment link', id: 'l1' },
      'gone',
    )
    const entries = readJournal(file)
    expect(
      entries.filter((entry) => entry.phase === 'found').map((entry) => [entry.id, entry.found]),
    ).toEqual([
      ['s0', 'cancelled'],
      ...['s1', 's2', 's3', 's4', 's5'].map((id) => [id, 'cancelled']),
      ['l1', 'gone'],
    ])
    const changes = changesFrom(entries)
    expect(changes.map((change) => [change.kind, change.id, change.outcome])).toEqual([
      ['cancel sub', 's5', 'unknown'],
      ['update sub', 's4', 'unknown'],
      ['cancel sub', 's3', 'done 200'],
      ['cancel sub', 's2', 'found cancelled'],
      ['cancel sub', 's1', 'found cancelled'],
      ['cancel sub', 's0', 'unknown'],
    ])
    const [found] = entries.filter((entry) => entry.phase === 'found' && entry.id === 's1')
    expect(changes[4]).toMatchObject({ settled_by: found.change, found_at: found.at })
  })
})

describe('sinceMoment', () => {
  it('takes a date, a date-time or a span back from now', () => {
    const now = Date.parse('2026-11-23T12:00:00Z')
    expect(sinceMoment('2026-11-01', now)).toBe(Date.parse('2026-11-01'))
    expect(sinceMoment('2026-11-23T09:00:00Z', now)).toBe(Date.parse('2026-11-23T09:00:00Z'))
    expect(sinceMoment('30m', now)).toBe(now - 30 * 60_000)
    expect(sinceMoment('7d', now)).toBe(now - 7 * 86_400_000)
    expect(() => sinceMoment('last week', now)).toThrow('--since: "last week" is neither a date nor a span.')
  })
})
