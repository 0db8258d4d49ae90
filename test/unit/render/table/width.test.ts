import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { drawTable, wrapText } from '../../../../src/render/table/table.js'
import {
  clusterWidth,
  cutToWidth,
  displayWidth,
  graphemes,
  segmentInPieces,
  wrapToWidth,
} from '../../../../src/render/table/width.js'

/**
 * Text measured, cut and wrapped as a terminal shows it: by grapheme cluster, CJK and emoji two
 * columns wide, accents none. (The end-to-end view at 80 columns: test/e2e/links/wide-text-terminal.test.ts.)
 */

const FAMILY = '👨\u200d👩\u200d👧'
const FLAG = '🇫🇷'
const E_ACUTE = 'e\u0301'

/** No line of `text` is wider than `width` columns. */
const widest = (text: string) => Math.max(...text.split('\n').map(displayWidth))

/** Every line holds whole clusters: no lone surrogate, nothing turned into U+FFFD. */
const wellFormed = (text: string) =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text) &&
  !text.includes('\ufffd')

describe('displayWidth', () => {
  it('counts columns, not code units or code points', () => {
    // First in the file: the patterns are compiled once, by the first text that needs them, and
    // `npm run test:mutation` counts a mutant of them as reached by that test alone.
    expect(displayWidth('\u263a\u200d\u263a')).toBe(2)
    expect(displayWidth('Invoice 1042')).toBe(12)
    expect(displayWidth('請求書')).toBe(6)
    expect(displayWidth('🎉')).toBe(2)
    expect(displayWidth(FAMILY)).toBe(2)
    expect(displayWidth(FLAG)).toBe(2)
    expect(displayWidth(`caf${E_ACUTE}`)).toBe(4)
    expect(displayWidth('חשבונית')).toBe(7)
    expect(displayWidth('\u001b[32mActive\u001b[39m')).toBe(6)
    // A keycap is an emoji that starts with an ASCII digit; control characters show nothing.
    expect(displayWidth('1\ufe0f\u20e3')).toBe(2)
    expect(clusterWidth('\u0007')).toBe(0)
    expect(displayWidth('a\u0007b')).toBe(2)
    // A skin tone after an emoji that takes none is no emoji of its own: a terminal shows both,
    // two columns each (the whole cluster is matched, not its start or its end).
    expect(displayWidth('😀🏽')).toBe(4)
    expect(displayWidth('👍🏽')).toBe(2)
    // Two wide pictographs joined by a ZWJ no font may know: one picture, not two.
    expect(displayWidth('🦄\u200d🦄')).toBe(2)
  })

  it('a ZWJ sequence of pictographs no font may know is one wide picture; a ZWJ after a letter adds nothing', () => {
    // U+263A is one column alone: its sequence is two because it is one, not because of its parts.
    expect(displayWidth('\u263a')).toBe(1)
    expect(displayWidth('\u263a\u200d\u263a')).toBe(2)
    expect(displayWidth('\u263a\u200d\u263a\u200d\u263a')).toBe(2)
    expect(displayWidth('a\u200d')).toBe(1)
  })

  it('a cluster of several characters that show takes a column for each, as a terminal measures it', () => {
    // What glibc's wcwidth and tmux count: a spacing vowel sign (ि, ी) takes a column, a
    // nonspacing one (े) and the virama (्) none; Hangul's conjoining vowel and final, none.
    expect(displayWidth('\u0915\u093f')).toBe(2) // कि: consonant and spacing vowel sign, one cluster
    expect(displayWidth('हिन्दी')).toBe(5)
    expect(displayWidth('नमस्ते')).toBe(4)
    expect(displayWidth('\u1100\u1161\u11a8')).toBe(2) // 각 in conjoining jamo, one wide syllable
    expect(displayWidth('ด\u0e33')).toBe(2) // Thai: Sara Am shows
  })

  it('a sign that holds on to what follows it (the Arabic number sign) takes no column of its own', () => {
    expect(graphemes('\u0600\u0661\u0662')).toEqual(['\u0600\u0661', '\u0662'])
    expect(displayWidth('\u0600\u0661\u0662')).toBe(2)
  })

  it('clusters are what a person sees as one character', () => {
    expect(graphemes(`a${FAMILY}${FLAG}${E_ACUTE}`)).toEqual(['a', FAMILY, FLAG, E_ACUTE])
  })
})

describe('segmentInPieces', () => {
  /** Pieces of text that join into clusters in every way Unicode has. */
  const PIECES = [
    'a',
    ' ',
    '1',
    '.',
    '請',
    '。',
    'é',
    '\u0301',
    '\u200d',
    '\ufe0f',
    '👨',
    '👩',
    '🎉',
    '👍',
    '🏽',
    '🇫',
    '🇷',
    '🇩',
    '🇪',
    '1\u20e3',
    'ᄀ',
    'ᅡ',
    'ᆨ',
    '가',
    'क',
    '्',
    'ष',
    'ि',
    'ก',
    'ำ',
    'ש',
    'ׁ',
    '\u0600',
    '٣',
    '\r',
    '\n',
    '\t',
    'Ω',
    'ß',
    '\u{1F3F3}',
    '\u{E0067}',
    '\u{E007F}',
  ]
  const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''))
  const whole = (value: string) => Array.from(new Intl.Segmenter().segment(value), (part) => part.segment)

  it('cuts only where a cluster starts: the same clusters as segmenting the text whole', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 8 }), (value, piece) => {
        expect(segmentInPieces(value, piece)).toEqual(whole(value))
      }),
      { numRuns: 3000 },
    )
  })

  it('in a long text, each piece ends where a cluster certainly starts, never inside one', () => {
    // Every 16 code units at most, "ab": whatever comes before the a (a ZWJ holds it), b starts a
    // cluster, so pieces of 1 to 8 code units always find a place to end before their 16th.
    const word = fc.array(fc.constantFrom(...PIECES), { maxLength: 7 }).map((parts) => `${parts.join('')}ab`)
    const long = fc.array(word, { minLength: 4, maxLength: 16 }).map((words) => words.join(''))
    fc.assert(
      fc.property(long, fc.integer({ min: 1, max: 8 }), (value, piece) => {
        expect(segmentInPieces(value, piece)).toEqual(whole(value))
      }),
      { numRuns: 1000 },
    )
  })

  it('with no place a cluster certainly starts (a giant ZWJ chain), cuts between code points, never inside a surrogate pair', () => {
    // Each link is 3 code units (a surrogate pair and a ZWJ): the 16th piece ends inside a pair.
    const chain = '👨\u200d'.repeat(40)
    for (const piece of [1, 2, 4]) {
      const clusters = segmentInPieces(chain, piece)
      expect(clusters.join('')).toBe(chain)
      expect(clusters.every(wellFormed), `pieces of ${piece}`).toBe(true)
      expect(clusters.length).toBeGreaterThan(1)
    }
    expect(segmentInPieces(`a${chain}`, 1).every(wellFormed)).toBe(true)
    // The first and the last low surrogates: U+1F400 is D83D DC00, U+1F3FF is D83C DFFF.
    for (const link of ['\u{1f400}\u200d', '\u{1f3ff}\u200d']) {
      expect(segmentInPieces(link.repeat(40), 1).every(wellFormed), link).toBe(true)
    }
  })

  it('a lone low surrogate first (broken text from anywhere): cut as a whole text is, no error', () => {
    for (const text of ['\udc00abc', '\udfff請求 書', '\udc00\udc00ab']) {
      expect(segmentInPieces(text, 1), JSON.stringify(text)).toEqual(whole(text))
    }
    expect(displayWidth('\udc00abc')).toBe(displayWidth('abc') + displayWidth('\udc00'))
  })

  it('knows where a cluster starts: at a pictograph, never after a prepended sign, even one beyond 16 bits', () => {
    // Clusters of 3 code units: a piece that ran to its 16th would end inside one.
    expect(segmentInPieces('👍\ufe0f'.repeat(12), 1)).toEqual(Array(12).fill('👍\ufe0f'))
    // A letter past the surrogates (U+FF21, fullwidth A) starts one like any letter.
    expect(segmentInPieces('\uff21\u0301'.repeat(10), 1)).toEqual(Array(10).fill('\uff21\u0301'))
    // U+110BD (Kaithi number sign, two code units) holds on to the letter after it.
    expect(segmentInPieces('\u{110bd}abc'.repeat(6), 1)).toEqual(
      Array.from({ length: 6 }, () => ['\u{110bd}a', 'b', 'c']).flat(),
    )
  })

  it('takes time in proportion to the text: 200,000 CJK characters and 100,000 emoji', () => {
    const cjk = '請'.repeat(200_000)
    expect(graphemes(cjk)).toHaveLength(200_000)
    expect(displayWidth(cjk)).toBe(400_000)
    expect(cutToWidth(`${'🎉'.repeat(100_000)}`, 9)).toBe('🎉🎉🎉🎉…')
    // ~1 s; whole, Intl.Segmenter took minutes. The timeout only keeps a loaded machine from failing it.
  })
})

describe('cutToWidth', () => {
  it('cuts by whole clusters and never past the width, CJK and emoji counting two', () => {
    expect(cutToWidth('請求書 1043 十一月', 8)).toBe('請求書…')
    expect(cutToWidth('🎉🎉 Party 🎉 for the team', 11)).toBe('🎉🎉 Party…')
    expect(cutToWidth('🎉🎉 Party 🎉 for the team', 10)).toBe('🎉🎉 Part…')
    expect(cutToWidth(`${FAMILY}${FAMILY}${FAMILY}`, 5)).toBe(`${FAMILY}${FAMILY}…`)
    expect(cutToWidth(`${FAMILY}${FAMILY}${FAMILY}`, 4)).toBe(`${FAMILY}…`)
    expect(cutToWidth('חשבונית עבור שירותי ייעוץ', 12)).toBe('חשבונית עבו…')
    expect(cutToWidth('short', 10)).toBe('short')
  })

  it('a cut never splits a surrogate pair or a ZWJ sequence, whatever the width', () => {
    const text = `${FAMILY}a${FLAG}請${E_ACUTE}😀😀`
    for (let width = 0; width <= displayWidth(text) + 1; width += 1) {
      const cut = cutToWidth(text, width)
      expect(wellFormed(cut)).toBe(true)
      expect(displayWidth(cut)).toBeLessThanOrEqual(Math.max(width, 0))
    }
  })

  it('at one column only the ellipsis is left, at none nothing', () => {
    expect(cutToWidth('abc', 1)).toBe('…')
    expect(cutToWidth('abc', 0)).toBe('')
  })

  it('keeps colour codes, so a colour is always switched off', () => {
    expect(cutToWidth('\u001b[32mActive, unpaid\u001b[39m', 7)).toBe('\u001b[32mActive…\u001b[39m')
  })
})

describe('wrapText', () => {
  it('breaks English at spaces, a long word inside it', () => {
    expect(wrapText('Invoice 1043 for consulting services in November', 20)).toBe(
      'Invoice 1043 for\nconsulting services\nin November',
    )
    expect(wrapText('abcdefghij', 4)).toBe('abcd\nefgh\nij')
    // A long word after a line: cut on the next line, with no empty line between.
    expect(wrapToWidth('aa bbbbbbbbbb', 6)).toBe('aa\nbbbbbb\nbbbb')
    expect(wrapToWidth('aaaa bbbb ', 6)).toBe('aaaa\nbbbb')
  })

  it('leaves a line that fits as it is, spaces included; a width under one wraps nothing', () => {
    expect(wrapToWidth('ab  \ncd', 4)).toBe('ab  \ncd')
    expect(wrapToWidth('ab cd', 0)).toBe('ab cd')
    expect(wrapToWidth('ab cd', 1)).toBe('a\nb\nc\nd')
  })

  it("a paragraph's leading spaces stay before a first word cut to fit, unless they fill the line", () => {
    expect(wrapToWidth('   aaaaaaaaaa', 8)).toBe('   aaaaa\n   aaaaa')
    expect(wrapToWidth(`${' '.repeat(8)}aaaa`, 8)).toBe('aaaa')
    expect(wrapToWidth(`${' '.repeat(9)}aaaaaaaa`, 8)).toBe('aaaaaaaa')
  })

  it('breaks between a wide cluster and a narrow one, either way round', () => {
    expect(wrapToWidth('abc請求', 4)).toBe('abc\n請求')
    expect(wrapToWidth('請求abc', 5)).toBe('請求\nabc')
    expect(wrapToWidth('x ab請', 4)).toBe('x ab\n請')
  })

  it('a cluster wider than the line gets a line of its own, with no empty line before it', () => {
    expect(wrapToWidth('a 請', 1)).toBe('a\n請')
    expect(wrapToWidth('請求', 1)).toBe('請\n求')
  })

  it('breaks CJK between characters, filling each line, never past the width', () => {
    const title = '請求書1043十一月のコンサルティング業務の料金です'
    const wrapped = wrapText(title, 20)
    expect(wrapped.split('\n')).toEqual(['請求書1043十一月のコ', 'ンサルティング業務の', '料金です'])
    expect(widest(wrapped)).toBeLessThanOrEqual(20)
    expect(wrapped.replace(/\n/g, '')).toBe(title)
  })

  it('keeps CJK closing punctuation on the line of what it closes', () => {
    expect(wrapText('一二三四、五六', 8).split('\n')).toEqual(['一二三', '四、五六'])
  })

  it('never ends a line with an opening bracket: it goes on with what it opens', () => {
    expect(wrapText('一二三「四五」', 8).split('\n')).toEqual(['一二三', '「四五」'])
    expect(wrapText('一二三（四', 8).split('\n')).toEqual(['一二三', '（四'])
  })

  it('emoji titles lose no word and run past no edge', () => {
    const title = `🎉 party for the team 🎉 ${FAMILY} family day 🎉`
    const wrapped = wrapText(title, 12)
    expect(wrapped.split('\n')).toEqual(['🎉 party for', 'the team 🎉', `${FAMILY} family`, 'day 🎉'])
    expect(widest(wrapped)).toBeLessThanOrEqual(12)
    expect(wellFormed(wrapped)).toBe(true)
  })

  it('right-to-left text wraps at its spaces like any other', () => {
    expect(wrapText('חשבונית עבור שירותי ייעוץ בנובמבר', 14).split('\n')).toEqual([
      'חשבונית עבור',
      'שירותי ייעוץ',
      'בנובמבר',
    ])
  })

  it('a plan line wraps at words, its continuation indented like it (no "[create" / "d]")', () => {
    const line = '  6b05940ead56131883fdb1f2  jane.doe@example.com · Business · 1250.50 USD  [created]'
    expect(wrapText(line, 80).split('\n')).toEqual([
      '  6b05940ead56131883fdb1f2  jane.doe@example.com · Business · 1250.50 USD',
      '  [created]',
    ])
    expect(wrapToWidth(line, 80, { indent: ' '.repeat(28) }).split('\n')[1]).toBe(
      `${' '.repeat(28)}[created]`,
    )
  })

  it('never breaks an amount from its currency: a delete plan at 80 columns, and any text wrapped', () => {
    // The line of `links delete`'s plan whose amount fell at the edge: `· 12.34` / `USD ·`.
    const line =
      '  6b05940ead56131883fdb1f2  Consulting for the month of November 2026 · 12.34 USD · jane@example.com'
    expect(wrapToWidth(line, 80, { indent: ' '.repeat(28) }).split('\n')).toEqual([
      '  6b05940ead56131883fdb1f2  Consulting for the month of November 2026 ·',
      `${' '.repeat(28)}12.34 USD · jane@example.com`,
    ])
    expect(wrapText('Owed: 1,250.50 EUR, 3 JPY) and 0.5 KWD.', 17).split('\n')).toEqual([
      'Owed:',
      '1,250.50 EUR,',
      '3 JPY) and',
      '0.5 KWD.',
    ])
    expect(wrapText('Refund -0.50 EUR now', 12).split('\n')).toEqual(['Refund', '-0.50 EUR', 'now'])
    // Only an amount and a code of three capitals hold together: words and lower case break as
    // ever, and so do a code after a word, and a word that only starts or ends in digits.
    expect(wrapText('about 12 usd ok', 8).split('\n')).toEqual(['about 12', 'usd ok'])
    expect(wrapText('Room 12 USDA', 8).split('\n')).toEqual(['Room 12', 'USDA'])
    expect(wrapText('Pay in USD today', 6).split('\n')).toEqual(['Pay in', 'USD', 'today'])
    expect(wrapText('Ref R-12 USD', 8).split('\n')).toEqual(['Ref R-12', 'USD'])
    expect(wrapText('the 3rd USD fund', 7).split('\n')).toEqual(['the 3rd', 'USD', 'fund'])
    expect(wrapText('USD 12', 3).split('\n')).toEqual(['USD', '12'])
  })

  it('an indent is kept up to half the line, and dropped past it', () => {
    const words = 'aaaa bbbb cccc dddd'
    const eight = ' '.repeat(8)
    expect(wrapToWidth(`${eight}${words}`, 16).split('\n')).toEqual([
      `${eight}aaaa`,
      `${eight}bbbb`,
      `${eight}cccc`,
      `${eight}dddd`,
    ])
    expect(wrapToWidth(` ${eight}${words}`, 16).split('\n')).toEqual([` ${eight}aaaa`, 'bbbb cccc dddd'])
    expect(wrapToWidth(words, 16, { indent: eight }).split('\n')).toEqual(['aaaa bbbb cccc', `${eight}dddd`])
    expect(wrapToWidth(words, 15, { indent: eight }).split('\n')).toEqual(['aaaa bbbb cccc', 'dddd'])
    expect(wrapToWidth(words, 16, { indent: '請請請請' }).split('\n')).toEqual([
      'aaaa bbbb cccc',
      '請請請請dddd',
    ])
    expect(wrapToWidth(words, 16, { indent: '請請請請請' }).split('\n')).toEqual(['aaaa bbbb cccc', 'dddd'])
  })
})

describe('drawTable', () => {
  it('pads by display width, so columns after CJK and emoji line up', () => {
    const text = drawTable(
      [
        ['請求書', 'a'],
        ['🎉x', 'b'],
        ['plain', 'c'],
      ],
      [6, 1],
    )
    const columnOfSecond = text.split('\n').map((line) => displayWidth(line.slice(0, -1)))
    expect(columnOfSecond).toEqual([8, 8, 8])
  })

  it('cuts a cell too wide for its column by whole clusters', () => {
    expect(drawTable([[`${FAMILY}${FAMILY}${FAMILY}`, 'x']], [5, 1])).toBe(`${FAMILY}${FAMILY}…  x`)
  })
})
