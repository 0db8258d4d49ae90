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

  it('keeps a quoted command on one line, and what the caller holds together', () => {
    expect(
      wrapMessage(
        'Error: "sandbox snapshot lst" is not a pay command. Did you mean "sandbox snapshot list"?',
        80,
      ),
    ).toBe('Error: "sandbox snapshot lst" is not a pay command. Did you mean\n"sandbox snapshot list"?')
    expect(wrapMessage('Then serve all of them with `pay sandbox start` now.', 40)).toBe(
      'Then serve all of them with\n`pay sandbox start` now.',
    )
    expect(wrapMessage('  l1  Invoice 1 · 25.50 EUR  [Active, unpaid]', 34, [/\[[^\]]*\]$/g])).toBe(
      '  l1  Invoice 1 · 25.50 EUR\n      [Active, unpaid]',
    )
  })

  it('keeps a word wider than the line whole, on a line of its own: a path or a URL copies whole', () => {
    expect(wrapMessage('Wrote /tmp/a-very-long-directory-name/report.csv today.', 20)).toBe(
      'Wrote\n/tmp/a-very-long-directory-name/report.csv\ntoday.',
    )
  })
})
