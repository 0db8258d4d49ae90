import { describe, expect, it } from 'vitest'
import { wrapMessage } from '../../../../src/render/table/table.js'

/** Words for a terminal's stderr (wrapMessage): wrapped at spaces, never inside a word. */
describe('wrapMessage', () => {
  it('wraps each line at spaces; a line led by a label continues under the text after it', () => {
    expect(wrapMessage('Open it in a browser to pay, then come back here.\n', 20)).toBe(
      'Open it in a browser\nto pay, then come\nback here.\n',
    )
    expect(wrapMessage('  --amount  The amount must be a number.', 30)).toBe(
      '  --amount  The amount must be\n            a number.',
    )
  })

  it('keeps a word wider than the line whole, on a line of its own: a path or a URL copies whole', () => {
    expect(wrapMessage('Wrote /tmp/a-very-long-directory-name/report.csv today.', 20)).toBe(
      'Wrote\n/tmp/a-very-long-directory-name/report.csv\ntoday.',
    )
  })
})
