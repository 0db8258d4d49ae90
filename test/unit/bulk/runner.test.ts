import { describe, expect, it } from 'vitest'
import { bulkOutcome, countsText, DOWN_AFTER, failedResult, runBulk } from '../../../src/bulk/runner.js'
import { PayError } from '../../../src/errors.js'

const SUBS = { noun: 'subscription', plural: 'subscriptions', done: 'cancelled' }
const LINKS = { noun: 'payment link', plural: 'payment links', done: 'deleted' }
const notFound = () => new PayError('Not found (404).', { kind: 'not_found', status: 404 })

describe('runBulk', () => {
  it('keeps at most `concurrency` ids in flight and gives one result per id, in input order', async () => {
    let inFlight = 0
    let most = 0
    const ids = Array.from({ length: 20 }, (_, i) => `id${i}`)
    const run = await runBulk(
      ids,
      async (id) => {
        inFlight += 1
        most = Math.max(most, inFlight)
        await new Promise((resolve) => setTimeout(resolve, Number(id.slice(2)) % 3))
        inFlight -= 1
        if (id === 'id7') throw notFound()
        if (id === 'id9') throw new Error('socket hang up')
        return 'done'
      },
      { concurrency: 4 },
    )
    expect(most).toBe(4)
    expect(run.results.map((r) => r.id)).toEqual(ids)
    expect(run.results[7]).toEqual({ id: 'id7', ok: false, status: 'not_found', error: 'Not found (404).' })
    expect(run.results[9]).toEqual({ id: 'id9', ok: false, status: 'failed', error: 'socket hang up' })
    expect(run.results.filter((r) => r.ok)).toHaveLength(18)
    expect(run.interrupted).toBe(false)
    expect(bulkOutcome(run, SUBS)?.message).toBe(
      '2 of 20 subscriptions not cancelled (1 not found, 1 failed).',
    )
    expect(bulkOutcome(run, SUBS)?.exitCode).toBe(7)
    expect(countsText(run.results, ['done', 'not_found', 'failed'])).toBe('18 done, 1 not found, 1 failed')
  })

  it('starts nothing new once stopped; the ids in flight finish; the rest are not_done (exit 130)', async () => {
    const stop = new AbortController()
    const started: string[] = []
    const run = await runBulk(
      ['a', 'b', 'c', 'd', 'e'],
      async (id) => {
        started.push(id)
        if (id === 'b') stop.abort()
        await new Promise((resolve) => setTimeout(resolve, 5))
        return 'done'
      },
      { concurrency: 2, stop: stop.signal },
    )
    expect(started).toEqual(['a', 'b'])
    expect(run.results.map((r) => r.status)).toEqual(['done', 'done', 'not_done', 'not_done', 'not_done'])
    expect(run.interrupted).toBe(true)
    const outcome = bulkOutcome(run, SUBS)
    expect([outcome?.message, outcome?.exitCode]).toEqual([
      'Interrupted: 2 of 5 subscriptions were processed; the rest were not touched.',
      130,
    ])
  })

  it('stops at the first refused key (exit 4): trying the rest could only fail the same way', async () => {
    const refused = new PayError('The API key was not accepted (401).', { kind: 'auth', status: 401 })
    const run = await runBulk(
      ['a', 'b', 'c'],
      async () => {
        throw refused
      },
      { concurrency: 1 },
    )
    expect(run.results.map((r) => r.status)).toEqual(['failed', 'not_done', 'not_done'])
    expect(bulkOutcome(run, LINKS)).toBe(refused)
  })

  it('a run of one id exits with that id’s own error', async () => {
    const error = notFound()
    const run = await runBulk(
      ['gone'],
      async () => {
        throw error
      },
      { concurrency: 4 },
    )
    expect(bulkOutcome(run, LINKS)).toBe(error)
  })

  it('stops after 10 failures in a row to reach the service: the rest are not_done, exit 6', async () => {
    const down = new PayError('Could not connect to http://127.0.0.1:9 (ECONNREFUSED).', {
      kind: 'unavailable',
    })
    const tried: string[] = []
    const ids = Array.from({ length: 40 }, (_, i) => `s${i}`)
    const run = await runBulk(
      ids,
      async (id) => {
        tried.push(id)
        // One success, then one 404 (not a sign of a service down), then the service is gone.
        if (id === 's0') return 'cancelled'
        if (id === 's1') throw notFound()
        throw down
      },
      { concurrency: 1 },
    )
    expect(DOWN_AFTER).toBe(10)
    expect(tried).toEqual(ids.slice(0, 12))
    expect(run.results.map((r) => r.status)).toEqual([
      'cancelled',
      'not_found',
      ...Array(10).fill('failed'),
      ...Array(28).fill('not_done'),
    ])
    const outcome = bulkOutcome(run, SUBS)
    expect([outcome?.message, outcome?.hint, outcome?.exitCode]).toEqual([
      'Stopped after 10 failures in a row to reach the service (last: Could not connect to http://127.0.0.1:9 (ECONNREFUSED).); 28 of 40 subscriptions were not tried.',
      'Try again once the service answers: --resume REPORT skips what was done.',
      6,
    ])
  })

  it('nine failures then a success start the count again', async () => {
    const down = new PayError('Service unavailable (503).', { kind: 'unavailable', status: 503 })
    const run = await runBulk(
      Array.from({ length: 25 }, (_, i) => `s${i}`),
      async (id) => {
        if (id === 's9' || id === 's19') return 'cancelled'
        throw down
      },
      { concurrency: 1 },
    )
    expect(run.results.filter((r) => r.status === 'not_done')).toEqual([])
    expect(run.serviceDown).toBeUndefined()
    expect(bulkOutcome(run, SUBS)?.exitCode).toBe(7)
  })

  it('a 422 is reported by its field errors, not only its general message', () => {
    const refused = new PayError('The given data was invalid.', {
      kind: 'validation',
      status: 422,
      errors: {
        reference: ['The reference has already been taken.'],
        email: ['The email is odd.', 'Too long.'],
      },
    })
    expect(failedResult('3', refused)).toEqual({
      id: '3',
      ok: false,
      status: 'failed',
      error: 'reference: The reference has already been taken.; email: The email is odd. Too long.',
    })
  })
})
