import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { PayError } from '../../../src/errors.js'
import { Output } from '../../../src/render/output.js'
import { type News, pauseMs, type Wait, waitFor } from '../../../src/runtime/wait.js'
import type { Rec } from '../../../src/values.js'
import { TestIO } from '../../helpers/io.js'

/**
 * The waiting loop of `links wait` (src/runtime/wait.ts) on a test IO with fake timers: how often it
 * looks, what it says on a terminal that redraws and on one that must not, and how it ends.
 * End to end: test/e2e/links/wait.test.ts.
 */

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

const unavailable = () =>
  new PayError('Could not reach http://127.0.0.1:9: connection refused.', { kind: 'unavailable' })
const TEN_MINUTES = { months: 0, ms: 600_000 }

/** A wait whose looks answer in turn from `answers` (a record, or an error to throw); the last repeats. */
function scripted(io: TestIO, answers: (Rec | Error)[], options: Partial<Wait> = {}) {
  const looks: number[] = []
  const wait: Wait = {
    what: 'payment link L1 to be paid',
    short: 'link L1 to be paid',
    look: async () => {
      looks.push(Date.now())
      const answer = answers.length > 1 ? answers.shift()! : answers[0]
      if (answer instanceof Error) throw answer
      return answer
    },
    done: (record) => record.paid === true,
    timeout: TEN_MINUTES,
    io,
    out: new Output(io),
    random: () => 0,
    ...options,
  }
  return { wait, looks }
}

describe('pauses between looks', () => {
  it('1 s, growing by half each time to 5 s, each shortened by up to a fifth at random', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((attempt) => pauseMs(attempt, () => 0))).toEqual([
      1000, 1500, 2250, 3375, 5000, 5000, 5000,
    ])
    expect(pauseMs(0, () => 1)).toBe(800)
    expect(pauseMs(7, () => 0.5)).toBe(4500)
  })
})

describe('waitFor', () => {
  it('returns at once, saying nothing, when the record already is what was waited for', async () => {
    const io = new TestIO({ terminal: true, colour: true })
    const { wait, looks } = scripted(io, [{ _id: 'L1', paid: true }])
    await expect(waitFor(wait)).resolves.toEqual({ _id: 'L1', paid: true })
    expect(looks).toHaveLength(1)
    expect(io.stderr.text).toBe('')
  })

  it('looks again after each pause until it is, on a terminal redrawing one line, cleared at the end', async () => {
    const io = new TestIO({ terminal: true, colour: true, width: 80 })
    const { wait, looks } = scripted(io, [{ paid: false }, { paid: false }, { paid: false }, { paid: true }])
    const started = Date.now()
    const done = waitFor(wait)
    await vi.advanceTimersByTimeAsync(1000 + 1500 + 2250)
    await expect(done).resolves.toEqual({ paid: true })
    expect(looks.map((at) => at - started)).toEqual([0, 1000, 2500, 4750])
    const text = io.stderr.text
    expect(text.startsWith('\r\u001b[2K')).toBe(true)
    expect(text.endsWith('\r\u001b[2K')).toBe(true)
    expect(text).not.toContain('\n')
    const drawn = text.split('\r\u001b[2K').filter(Boolean)
    expect(drawn[0]).toBe('Waiting for link L1 to be paid · 0s · 10m 00s left')
    expect(drawn).toContain('Waiting for link L1 to be paid · 4s · 9m 56s left')
    for (const line of drawn) expect([...line].length).toBeLessThanOrEqual(77)
  })

  it('where it must not redraw (NO_COLOR, TERM=dumb, not a terminal): a plain line when something changes', async () => {
    const io = new TestIO({ terminal: true, colour: false })
    const { wait } = scripted(io, [
      { paid: false },
      unavailable(),
      unavailable(),
      unavailable(),
      { paid: false },
      { paid: true },
    ])
    const done = waitFor(wait)
    await vi.advanceTimersByTimeAsync(60_000)
    await expect(done).resolves.toEqual({ paid: true })
    expect(io.stderr.text).toBe(
      [
        'Waiting for payment link L1 to be paid (at most 10m).',
        'The service does not answer (Could not reach http://127.0.0.1:9: connection refused.); still waiting.',
        'The service answers again; still waiting.',
        '',
      ].join('\n'),
    )
  })

  it('keeps waiting while the service fails, and says so on the redrawn line', async () => {
    const io = new TestIO({ terminal: true, colour: true, width: 120 })
    const { wait } = scripted(io, [unavailable(), { paid: true }])
    const done = waitFor(wait)
    await vi.advanceTimersByTimeAsync(1000)
    await expect(done).resolves.toEqual({ paid: true })
    expect(io.stderr.text).toContain('Waiting for link L1 to be paid · 0s · 10m 00s left · no answer')
  })

  it('at 80 columns the times are shortened, never the state: "no answer" stays on the line', async () => {
    const io = new TestIO({ terminal: true, colour: true, width: 80 })
    const id = '65a1f0c2e4b0a1b2c3d4e5f6'
    const { wait } = scripted(io, [{ paid: false }, unavailable()], {
      short: `link ${id} to be paid`,
      timeout: { months: 0, ms: 7_200_000 },
    })
    const done = waitFor(wait)
    done.catch(() => {})
    await vi.advanceTimersByTimeAsync(3_725_000)
    io.interrupt()
    await expect(done).rejects.toMatchObject({ kind: 'cancelled' })
    const drawn = io.stderr.text.split('\r\u001b[2K').filter(Boolean)
    for (const line of drawn) expect([...line].length).toBeLessThanOrEqual(77)
    // Answering: every time shown whole.
    expect(drawn[0]).toBe(`Waiting for link ${id} to be paid · 0s · 2h 00m left`)
    expect(drawn[1]).toBe(`Waiting for link ${id} to be paid · 1s · 1h 59m left`)
    // Not answering: the times are shortened, the time waited goes, never "no answer".
    expect(drawn[2]).toBe(`Waiting for link ${id} to be paid · 1h59m left · no answer`)
    expect(drawn.at(-1)).toBe(`Waiting for link ${id} to be paid · 57m left · no answer`)
    for (const line of drawn.slice(2)) expect(line.endsWith(' · no answer')).toBe(true)
  })

  it('on a terminal narrower still, the words of what is waited for are cut, never the state', async () => {
    const io = new TestIO({ terminal: true, colour: true, width: 40 })
    const { wait } = scripted(io, [unavailable()], { short: 'link 65a1f0c2e4b0a1b2c3d4e5f6 to be paid' })
    const done = waitFor(wait)
    done.catch(() => {})
    await vi.advanceTimersByTimeAsync(2000)
    io.interrupt()
    await expect(done).rejects.toMatchObject({ kind: 'cancelled' })
    const drawn = io.stderr.text.split('\r\u001b[2K').filter(Boolean)
    expect(drawn.at(-1)).toBe('Waiting for link 65a1f0c… · no answer')
  })

  it('stops at any other error: a refused key, an unknown id', async () => {
    for (const error of [
      new PayError('The API key was not accepted (401).', { kind: 'auth', status: 401 }),
      new PayError('Payment link not found.', { kind: 'not_found', status: 404 }),
    ]) {
      const io = new TestIO()
      const { wait, looks } = scripted(io, [{ paid: false }, error])
      const done = waitFor(wait)
      done.catch(() => {})
      await vi.advanceTimersByTimeAsync(1000)
      await expect(done).rejects.toBe(error)
      expect(looks).toHaveLength(2)
    }
  })

  it('ends when the timeout runs out (exit 8), even in the middle of a look that does not answer', async () => {
    const io = new TestIO()
    const { wait } = scripted(io, [{ paid: false }], { timeout: { months: 0, ms: 7000 } })
    wait.look = (() => {
      let first = true
      return () => {
        if (first) {
          first = false
          return Promise.resolve({ paid: false })
        }
        return new Promise<Rec>(() => {})
      }
    })()
    const done = waitFor(wait)
    done.catch(() => {})
    await vi.advanceTimersByTimeAsync(6999)
    let settled = false
    done.then(
      () => (settled = true),
      () => (settled = true),
    )
    await vi.advanceTimersByTimeAsync(0)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const error = await done.catch((e) => e)
    expect(error).toBeInstanceOf(PayError)
    expect(error).toMatchObject({
      kind: 'wait_timeout',
      exitCode: 8,
      message: 'Still waiting for payment link L1 to be paid after 7s.',
      hint: 'Wait longer with --timeout DURATION (0: no limit).',
    })
  })

  it('a timeout longer than one timer holds (30 days; a timer holds 24.8) ends at its time, not at once', async () => {
    const io = new TestIO()
    const { wait } = scripted(io, [{ paid: false }], { timeout: { months: 0, ms: 30 * 86_400_000 } })
    let looked = false
    wait.look = () => {
      if (looked) return new Promise<Rec>(() => {})
      looked = true
      return Promise.resolve({ paid: false })
    }
    const done = waitFor(wait)
    let settled = false
    done.then(
      () => (settled = true),
      () => (settled = true),
    )
    await vi.advanceTimersByTimeAsync(30 * 86_400_000 - 1)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await expect(done).rejects.toMatchObject({
      kind: 'wait_timeout',
      message: 'Still waiting for payment link L1 to be paid after 30d.',
    })
  })

  it('told what is heard of the record: "look" looks at once, a state is said, "end" ends after one last look', async () => {
    const io = new TestIO({ terminal: true, colour: false })
    let tell: (news: News) => void = () => {}
    const { wait, looks } = scripted(io, [{ paid: false }], { hear: (given) => (tell = given) })
    const started = Date.now()
    const done = waitFor(wait)
    done.catch(() => {})
    await vi.advanceTimersByTimeAsync(300)
    tell({ kind: 'look' })
    await vi.advanceTimersByTimeAsync(0)
    expect(looks.map((at) => at - started)).toEqual([0, 300])
    tell({ kind: 'state', short: 'attempt pending', line: 'The payment is pending; still waiting.' })
    await vi.advanceTimersByTimeAsync(200)
    tell({ kind: 'end' })
    await expect(done).resolves.toEqual({ paid: false })
    expect(looks.map((at) => at - started)).toEqual([0, 300, 500])
    expect(io.stderr.text).toBe(
      'Waiting for payment link L1 to be paid (at most 10m).\nThe payment is pending; still waiting.\n',
    )
  })

  it('on a terminal that redraws, a state heard stays on the line after the times', async () => {
    const io = new TestIO({ terminal: true, colour: true, width: 120 })
    let tell: (news: News) => void = () => {}
    const { wait } = scripted(io, [{ paid: false }], { hear: (given) => (tell = given) })
    const done = waitFor(wait)
    done.catch(() => {})
    await vi.advanceTimersByTimeAsync(100)
    tell({ kind: 'state', short: 'attempt pending', line: 'The payment is pending; still waiting.' })
    await vi.advanceTimersByTimeAsync(1000)
    io.interrupt()
    await expect(done).rejects.toMatchObject({ kind: 'cancelled' })
    const drawn = io.stderr.text.split('\r\u001b[2K').filter(Boolean)
    expect(drawn.at(-1)).toBe('Waiting for link L1 to be paid · 1s · 9m 59s left · attempt pending')
    expect(io.stderr.text).not.toContain('still waiting')
  })

  it('waits for ever with a timeout of 0', async () => {
    const io = new TestIO()
    const { wait, looks } = scripted(io, [{ paid: false }], { timeout: { months: 0, ms: 0 } })
    const done = waitFor(wait)
    done.catch(() => {})
    await vi.advanceTimersByTimeAsync(24 * 3_600_000)
    expect(looks.length).toBeGreaterThan(24 * 720 - 10)
    io.interrupt()
    await expect(done).rejects.toMatchObject({ kind: 'cancelled' })
    expect(io.stderr.text).toBe('Waiting for payment link L1 to be paid.\n')
  })

  it('ends at once on Ctrl-C (exit 130), a look in flight or not, and stops listening for it', async () => {
    const io = new TestIO({ terminal: true, colour: true })
    const { wait } = scripted(io, [{ paid: false }])
    wait.look = () => new Promise<Rec>(() => {})
    const done = waitFor(wait)
    done.catch(() => {})
    await vi.advanceTimersByTimeAsync(3000)
    io.interrupt()
    const error = await done.catch((e) => e)
    expect(error).toMatchObject({ kind: 'cancelled', exitCode: 130, message: 'Cancelled.' })
    expect(io.stderr.text.endsWith('\r\u001b[2K')).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
    io.interrupt() // nobody listens any more
  })
})
