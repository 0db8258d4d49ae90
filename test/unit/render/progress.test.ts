import { describe, expect, it } from 'vitest'
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
