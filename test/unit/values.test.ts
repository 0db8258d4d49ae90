import { describe, expect, it } from 'vitest'
import { escapeControls } from '../../src/render/json.js'
import { sanitizeText } from '../../src/values.js'

/** The shared sanitiser: what every output but JSON shows of a server's text. */
describe('sanitizeText', () => {
  it('names each bidirectional control instead of letting it reorder the line', () => {
    expect(sanitizeText('REF-\u202eevil')).toBe('REF-<U+202E>evil')
    const controls = [
      0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
    ]
    for (const code of controls) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0')
      expect(sanitizeText(`a${String.fromCharCode(code)}b`)).toBe(`a<U+${hex}>b`)
    }
  })

  it('leaves letters of right-to-left scripts and other Unicode alone', () => {
    expect(sanitizeText('שלום مرحبا naïve 😀 \u200b \u2028')).toBe('שלום مرحبا naïve 😀 \u200b \u2028')
  })

  it('still writes C0 and C1 controls in caret notation, keeping tab and newline', () => {
    expect(sanitizeText('a\u001b[2J\u009b\u0007\t\n\u007f')).toBe('a^[[2JM-^[^G\t\n^?')
  })
})

describe('escapeControls (JSON text)', () => {
  it('escapes the bidirectional controls too: the text is safe to show, the data the same once parsed', () => {
    const json = JSON.stringify({ reference: 'REF-\u202eevil\u2066' })
    const escaped = escapeControls(json)
    expect(escaped).toBe(String.raw`{"reference":"REF-\u202eevil\u2066"}`)
    expect(JSON.parse(escaped)).toEqual(JSON.parse(json))
  })
})
