import { describe, expect, test } from 'vitest'
import { qrImageType, qrLines } from '../../../src/render/qr.js'
import { colouredDrawingModules, decodeModules, plainDrawingModules } from '../../helpers/qr.js'

const URL = 'http://127.0.0.1:4010/checkout/pay?id=65a1f0c2e4b0a1b2c3d4e5f6'

describe('qrLines', () => {
  test('plain: half blocks with a 4-module quiet zone, decoding to the text', () => {
    const lines = qrLines(URL, false)
    // Version 4 (33 modules) for this URL at level M, plus the quiet zone: 41 columns, 21 lines.
    expect(lines).toHaveLength(21)
    for (const line of lines) expect([...line]).toHaveLength(41)
    expect(lines[0]).toBe(' '.repeat(41))
    expect(lines[1]).toBe(' '.repeat(41))
    expect(lines[2].slice(0, 11)).toBe('    █▀▀▀▀▀█')
    expect(decodeModules(plainDrawingModules(lines))).toBe(URL)
  })

  test('coloured: every cell sets black and white itself, decoding to the text', () => {
    const lines = qrLines(URL, true)
    expect(lines).toHaveLength(21)
    for (const line of lines) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the SGR sequences of the drawing
      expect(line).toMatch(/^(\u001b\[(30|97);(40|107)m▀){41}\u001b\[0m$/u)
    }
    expect(decodeModules(colouredDrawingModules(lines))).toBe(URL)
  })
})

test.each([
  ['a.png', 'png'],
  ['A.PNG', 'png'],
  ['dir.svg/b.svg', 'svg'],
  ['c.jpg', undefined],
  ['png', undefined],
])('qrImageType(%s) is %s', (file, type) => {
  expect(qrImageType(file)).toBe(type)
})
