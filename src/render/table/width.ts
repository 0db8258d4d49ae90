import { eastAsianWidth } from 'get-east-asian-width'

/**
 * Text as a terminal shows it: in grapheme clusters (what a person sees as one character: `é`
 * written as e + accent, a flag, a family emoji joined by ZWJs), each one or two columns wide.
 * A CJK ideograph or an emoji takes two columns, an accent none. Tables measure, cut and wrap
 * with these, so a title in Japanese or with emoji neither runs past the terminal's edge nor
 * loses more than it must, and a cut never falls inside a cluster (a surrogate pair cut in
 * half is U+FFFD on screen).
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: pay's own colour codes, measured as nothing
const ANSI = /\u001b\[[0-9;]*m/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: splits text around pay's colour codes
const ANSI_SPLIT = /(\u001b\[[0-9;]*m)/
const PLAIN_ASCII = /^[\x20-\x7e]*$/

let segmenter: Intl.Segmenter | undefined
let patterns: { visible: RegExp; emoji: RegExp; pictographic: RegExp } | undefined

/** The clusters of `text`. Plain ASCII needs no segmenter (creating one costs ~13 ms). */
export function graphemes(text: string): string[] {
  // Stryker disable next-line ConditionalExpression: a fast path; the segmenter cuts printable ASCII into the same single characters
  if (PLAIN_ASCII.test(text)) return text.split('')
  return segmentInPieces(text)
}

/**
 * A cluster always starts before one of these (a letter, digit, punctuation or space of a script
 * whose letters never join the one before, or a pictograph not after a ZWJ)…
 */
const STARTS_CLUSTER = /^(?:[\p{L}\p{N}\p{P}\p{Zs}\p{Extended_Pictographic}])$/u
/**
 * …except these: Hangul jamo join (GB6-8); consonants of scripts with a virama join after it
 * (GB9c); Thai and Lao AM are letters that join as spacing marks; marks, skin tones and flag
 * halves join too.
 */
const MAY_JOIN = new RegExp(
  `^[${[
    ...'Hangul Devanagari Bengali Gurmukhi Gujarati Oriya Tamil Telugu Kannada Malayalam Sinhala Thai Lao Tibetan Myanmar Khmer Balinese Javanese Tai_Tham'
      .split(' ')
      .map((script) => `\\p{Script=${script}}`),
    // Stryker disable next-line StringLiteral: no mark, skin tone or flag half is a letter, digit, punctuation, space or pictograph, so STARTS_CLUSTER refuses them first; they are named for the reader
    '\\p{M}\\p{Emoji_Modifier}\\p{Regional_Indicator}',
    // Stryker disable next-line StringLiteral: text between the class's parts only adds characters that may join, which moves where a piece ends, never the clusters (the same as the text segmented whole: width.test.ts)
  ].join('')}]$`,
  'u',
)
/** Prepend characters (GB9b) hold on to what follows them; ZWJ holds a pictograph (GB11). */
const HOLDS_NEXT =
  /^(?:\u200d|[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u0d4e\u{110bd}\u{110cd}\u{111c2}\u{111c3}\u{1193f}\u{11941}\u{11a3a}\u{11a84}-\u{11a89}\u{11d46}])$/u

/**
 * Intl.Segmenter takes time that grows faster than the text (80,000 CJK characters: ~20 s on
 * Node 20), so that a title from a hostile server could hang a table. Text is segmented in pieces
 * of about `piece` code units, each ended where a cluster certainly starts; past 16 pieces
 * without such a place (a giant ZWJ chain), at a code point boundary.
 */
export function segmentInPieces(text: string, piece = 256): string[] {
  segmenter ??= new Intl.Segmenter()
  const clusters: string[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + piece)
    const limit = Math.min(text.length, start + piece * 16)
    while (end < limit && !startsCluster(text, end)) end += 1
    // No certain boundary near: any place that does not split a surrogate pair.
    // Stryker disable next-line ConditionalExpression,AssignmentOperator: past the end charCodeAt is NaN, no surrogate; a step back (end is 16 pieces on from start here) cuts before the pair as a step on cuts after it
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end += 1
    for (const part of segmenter.segment(text.slice(start, end))) clusters.push(part.segment)
    start = end
  }
  return clusters
}

function startsCluster(text: string, index: number): boolean {
  const code = text.charCodeAt(index)
  if (isLowSurrogate(code)) return false
  const char = String.fromCodePoint(text.codePointAt(index) ?? code)
  if (!STARTS_CLUSTER.test(char) || MAY_JOIN.test(char)) return false
  const before = text.codePointAt(isLowSurrogate(text.charCodeAt(index - 1)) ? index - 2 : index - 1)
  return before !== undefined && !HOLDS_NEXT.test(String.fromCodePoint(before))
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

function compiled() {
  patterns ??= {
    // A character that shows: not a control, format character (bidi marks, ZWJ), or combining mark.
    visible:
      /[^\p{Default_Ignorable_Code_Point}\p{Control}\p{Format}\p{Nonspacing_Mark}\p{Enclosing_Mark}\p{Surrogate}]/u,
    // Written with `new RegExp`: the `v` flag is newer than the TypeScript target (ES2022).
    // biome-ignore lint/complexity/useRegexLiterals: a literal with the v flag does not compile for ES2022
    emoji: new RegExp('^\\p{RGI_Emoji}$', 'v'),
    pictographic: /\p{Extended_Pictographic}/gu,
  }
  return patterns
}

/** Columns one cluster takes: 0 (marks, format characters), 1, or 2 (CJK, emoji). */
export function clusterWidth(cluster: string): number {
  // Stryker disable next-line BlockStatement: a fast path; the checks below measure a printable ASCII character as 1 all the same
  if (cluster.length === 1) {
    const code = cluster.charCodeAt(0)
    if (code >= 0x20 && code <= 0x7e) return 1
  }
  const { visible, emoji, pictographic } = compiled()
  const base = cluster.search(visible)
  if (base === -1) return 0
  if (emoji.test(cluster)) return 2
  // A ZWJ sequence of pictographs a font may not know still shows as one wide picture.
  // Stryker disable next-line StringLiteral: a cluster holds two pictographs only where a ZWJ joins them (GB11)
  if (cluster.includes('\u200d') && (cluster.match(pictographic)?.length ?? 0) >= 2) return 2
  // A cluster of several characters that show (हि, स्ते: a consonant with a vowel sign or a
  // conjunct) takes a column for each on a terminal, which measures character by character.
  let width = 0
  // Stryker disable next-line MethodExpression: what comes before base does not show, and only what shows is counted
  for (const char of cluster.slice(base)) {
    if (visible.test(char) && !CONJOINING_JAMO.test(char))
      width += eastAsianWidth(char.codePointAt(0) ?? 0x20)
  }
  return width
}

/** Hangul's medial vowels and final consonants: they join the syllable before, in no column of their own. */
const CONJOINING_JAMO = /[\u1160-\u11ff\ud7b0-\ud7ff]/

/** Columns `text` takes on a terminal (one line; pay's colour codes count as nothing). */
export function displayWidth(text: string): number {
  const plain = text.includes('\u001b') ? text.replace(ANSI, '') : text
  if (PLAIN_ASCII.test(plain)) return plain.length
  let width = 0
  for (const cluster of graphemes(plain)) width += clusterWidth(cluster)
  return width
}

/**
 * `text` cut to at most `width` columns, ending in `…` when something was cut; whole clusters
 * only. Colour codes are kept (those after the cut too, so a colour is always switched off).
 */
export function cutToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  const room = Math.max(0, width - 1)
  let used = 0
  let full = false
  let out = ''
  for (const part of text.split(ANSI_SPLIT)) {
    if (part.startsWith('\u001b')) {
      out += part
      continue
    }
    if (full) continue
    for (const cluster of graphemes(part)) {
      const w = clusterWidth(cluster)
      if (used + w > room) {
        full = true
        break
      }
      out += cluster
      used += w
    }
    // "Invoice 1043 for…", not "Invoice 1043 for …".
    if (full) out = `${out.trimEnd()}…`
  }
  return width < 1 ? out.replace('…', '') : out
}

/** `text` followed by spaces up to `width` columns. */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)))
}

/** Closing punctuation never starts a line (CJK line-breaking rules, and English). */
const CLOSING = new Set([
  ...'、。，．：；！？）」』】〉》〕］｝〙〗ー々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ,.;:!?)]}…',
])
/** Opening brackets never end one. */
const OPENING = new Set([...'（「『【〈《〔［｛〘〖([{'])

interface Word {
  /** Spaces before the word on the same line. */
  gap: string
  text: string
  width: number
}

/** An amount as pay writes it (`12.34`, `1000`, `-0.5`)… */
const AMOUNT_WORD = /^[-+]?\d[\d.,]*$/
/** …and the currency code after it (`USD`, `EUR,`, `JPY)`): one word, never two lines. */
const CURRENCY_WORD = /^[A-Z]{3}(?![\p{L}\p{N}])/u

/**
 * The words of a paragraph, where a line may break: at spaces, and around each wide cluster
 * (CJK is written without spaces and breaks between characters, as a terminal user expects);
 * closing punctuation stays with what it closes, an opening bracket with what it opens, and an
 * amount with its currency (`12.34 USD`, never `12.34` at the end of a line and `USD` at the start
 * of the next).
 */
function wordsOf(paragraph: string): Word[] {
  const words: Word[] = []
  for (const word of splitWords(paragraph)) {
    const before = words.at(-1)
    // Two narrow words are two only where a space parts them: an amount and a code are never glued.
    if (before && AMOUNT_WORD.test(before.text) && CURRENCY_WORD.test(word.text)) {
      before.text += word.gap + word.text
      before.width += word.gap.length + word.width
    } else words.push(word)
  }
  return words
}

/** The words of a paragraph, at spaces and around wide clusters (wordsOf, before amounts join their currency). */
function splitWords(paragraph: string): Word[] {
  const words: Word[] = []
  let gap = ''
  let current: Word | undefined
  // Stryker disable next-line StringLiteral: read only once a cluster has set it
  let last = ''
  for (const cluster of graphemes(paragraph)) {
    if (cluster === ' ') {
      if (current) words.push(current)
      current = undefined
      gap += ' '
      continue
    }
    const width = clusterWidth(cluster)
    if (current) {
      const wide = width === 2 || clusterWidth(last) === 2
      if (wide && !CLOSING.has(cluster) && !OPENING.has(last)) {
        words.push(current)
        current = undefined
      }
    }
    current ??= { gap, text: '', width: 0 }
    gap = ''
    current.text += cluster
    current.width += width
    last = cluster
  }
  if (current) words.push(current)
  return words
}

export interface WrapOptions {
  /**
   * What starts every line after a paragraph's first: by default the paragraph's own leading
   * spaces, so that an indented line of a plan stays indented.
   */
  indent?: string
  /**
   * A word wider than a line stays whole, on a line of its own, for the terminal to fold: an
   * e-mail address, a URL or a path is then copied whole (a terminal joins what it folded).
   */
  unbroken?: boolean
}

/**
 * `text` broken into lines of at most `width` columns: at spaces and between CJK characters,
 * inside a word only when the word alone is wider than a line (then between clusters, never
 * inside one; or not at all, `unbroken`). Newlines in the text start new paragraphs.
 */
export function wrapToWidth(text: string, width: number, options: WrapOptions = {}): string {
  if (width < 1) return text
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    if (displayWidth(paragraph) <= width) {
      lines.push(paragraph)
      continue
    }
    // Stryker disable next-line OptionalChaining,StringLiteral,Regex: / */ and /^ */ both match every text at its start, if only with nothing
    const lead = /^ */.exec(paragraph)?.[0] ?? ''
    let indent = options.indent ?? lead
    // An indent that leaves less than half the line is not kept.
    if (displayWidth(indent) > width / 2) indent = ''
    const indentWidth = displayWidth(indent)
    let line = ''
    let used = 0
    let content = false
    let firstLine = true
    const push = () => {
      lines.push(line.trimEnd())
      line = indent
      used = indentWidth
      content = false
      // Stryker disable next-line BooleanLiteral: after a push, a cluster is added before firstLine is read again
      firstLine = false
    }
    const add = (part: string, columns: number) => {
      line += part
      used += columns
      content = true
    }
    for (const word of wordsOf(paragraph)) {
      // Spaces before a word are kept inside a line and at the start of the paragraph only.
      // Stryker disable next-line StringLiteral,ConditionalExpression: a line is never left empty after a push, so '' is not reached
      const gap = content || firstLine ? word.gap : ''
      if (used + gap.length + word.width <= width) {
        add(gap + word.text, gap.length + word.width)
        continue
      }
      if (content) push()
      else if (firstLine && gap.length < width) {
        line += gap
        used += gap.length
      }
      // Stryker disable next-line BlockStatement: the cut below adds a word that fits whole just the same
      if (used + word.width <= width) {
        add(word.text, word.width)
        continue
      }
      if (options.unbroken) {
        add(word.text, word.width)
        continue
      }
      // A word wider than a line: cut between clusters.
      for (const cluster of graphemes(word.text)) {
        const w = clusterWidth(cluster)
        if (used + w > width && content) push()
        add(cluster, w)
      }
    }
    lines.push(line.trimEnd())
  }
  return lines.join('\n')
}
