import { describe, expect, it, vi } from 'vitest'
import { accessibleMode, canRedraw } from '../../../src/render/accessible.js'
import { ProgressBar } from '../../../src/render/progress.js'
import { Sink } from '../../helpers/io.js'

describe('accessibleMode', () => {
  it('PAY_ACCESSIBLE or ACCESSIBLE set to anything but an empty or negative word', () => {
    const modes = [
      {},
      { PAY_ACCESSIBLE: '1' },
      { ACCESSIBLE: 'true' },
      { ACCESSIBLE: 'yes' },
      { PAY_ACCESSIBLE: '0' },
      { PAY_ACCESSIBLE: 'false' },
      { ACCESSIBLE: '' },
      { ACCESSIBLE: 'NO' },
      { PAY_ACCESSIBLE: 'off', ACCESSIBLE: '1' },
    ].map((env) => accessibleMode(env))
    expect(modes).toEqual([false, true, true, true, false, false, false, false, true])
  })

  it('a line is redrawn only outside accessible mode, on a terminal that can (not TERM=dumb)', () => {
    expect(canRedraw({ TERM: 'xterm-256color' })).toBe(true)
    expect(canRedraw({ TERM: 'xterm-256color', PAY_ACCESSIBLE: '1' })).toBe(false)
    expect(canRedraw({ TERM: 'dumb' })).toBe(false)
  })
})

describe('ProgressBar', () => {
  it('plain: a line at each tenth of the work and at the end, never a carriage return', () => {
    const stream = new Sink()
    const bar = new ProgressBar(stream, 25, { plain: true })
    for (let i = 0; i < 25; i += 1) bar.tick(i % 5 === 4 ? 'failed' : 'cancelled')
    bar.clear()
    expect(stream.text).toBe(
      [
        'Progress: 3 of 25 (12%): cancelled 3.',
        'Progress: 5 of 25 (20%): cancelled 4, failed 1.',
        'Progress: 8 of 25 (32%): cancelled 7, failed 1.',
        'Progress: 10 of 25 (40%): cancelled 8, failed 2.',
        'Progress: 13 of 25 (52%): cancelled 11, failed 2.',
        'Progress: 15 of 25 (60%): cancelled 12, failed 3.',
        'Progress: 18 of 25 (72%): cancelled 15, failed 3.',
        'Progress: 20 of 25 (80%): cancelled 16, failed 4.',
        'Progress: 23 of 25 (92%): cancelled 19, failed 4.',
        'Progress: 25 of 25 (100%): cancelled 20, failed 5.',
        '',
      ].join('\n'),
    )
  })

  it('at 80 columns the bar narrows, then goes; the counts stay whole', () => {
    const stream = new Sink()
    const bar = new ProgressBar(stream, 1000, { plain: false, width: () => 80 })
    const statuses = [
      ...Array(855).fill('cancelled'),
      ...Array(95).fill('already_cancelled'),
      ...Array(49).fill('not_found'),
      'failed',
    ]
    vi.useFakeTimers()
    try {
      for (const status of statuses) {
        vi.advanceTimersByTime(100)
        bar.tick(status)
      }
    } finally {
      vi.useRealTimers()
    }
    const drawn = stream.text.split('\r\u001b[2K').filter(Boolean)
    for (const line of drawn) expect([...line].length).toBeLessThanOrEqual(77)
    expect(drawn[0]).toBe('[░░░░░░░░░░░░░░░░░░░░] 1/1000  cancelled 1')
    expect(drawn.at(-1)).toBe('1000/1000  cancelled 855 · already cancelled 95 · not found 49 · failed 1')
    expect(drawn[949]).toBe('[███████████████████░] 950/1000  cancelled 855 · already cancelled 95')
    expect(drawn[950]).toBe('[██████████] 951/1000  cancelled 855 · already cancelled 95 · not found 1')
  })

  it('otherwise: one line redrawn in place, cleared at the end', () => {
    const stream = new Sink()
    const bar = new ProgressBar(stream, 2, { plain: false })
    bar.tick('deleted')
    bar.tick('not_found')
    bar.clear()
    expect(stream.text).toBe(
      '\r\u001b[2K[██████████░░░░░░░░░░] 1/2  deleted 1' +
        '\r\u001b[2K[████████████████████] 2/2  deleted 1 · not found 1' +
        '\r\u001b[2K',
    )
  })
})
