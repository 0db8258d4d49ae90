import { describe, expect, it } from 'vitest'
import { bulkOutcome, runBulk } from '../../../src/bulk/runner.js'
import { PayError } from '../../../src/errors.js'

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
    expect(bulkOutcome(run, 'subscription', 'subscriptions', 'cancelled')?.message).toBe(
      '2 of 20 subscriptions could not be cancelled.',
    )
    expect(bulkOutcome(run, 'subscription', 'subscriptions', 'cancelled')?.exitCode).toBe(7)
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
    const outcome = bulkOutcome(run, 'subscription', 'subscriptions', 'cancelled')
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
    expect(bulkOutcome(run, 'payment link', 'payment links', 'deleted')).toBe(refused)
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
    expect(bulkOutcome(run, 'payment link', 'payment links', 'deleted')).toBe(error)
  })
})
