import { describe, expect, it } from 'vitest'
import type { ConfigFile } from '../../../src/config/file.js'
import { redactKey, storedProfile } from '../../../src/config/profiles.js'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'

describe('redactKey', () => {
  it('shows the first 4 and last 4 characters of a long key', () => {
    expect(redactKey('sk_live_1234567890abcdef')).toBe('sk_l…cdef')
    expect(redactKey('abcdefghijklmnop')).toBe('abcd…mnop')
    expect(redactKey(SANDBOX_KEY)).toBe('sk_s…9e1d')
  })

  it('shows less of a short key', () => {
    expect(redactKey('abcdefghijklmno')).toBe('abc…mno')
    expect(redactKey('abcdefgh')).toBe('ab…gh')
    expect(redactKey('abcd')).toBe('a…d')
    expect(redactKey('abc')).toBe('…')
    expect(redactKey('a')).toBe('…')
    expect(redactKey('')).toBe('…')
  })

  it('never shows a whole key, nor more than half of it, nor more than 8 characters', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
    for (let length = 1; length <= 80; length += 1) {
      const key = alphabet.repeat(2).slice(0, length)
      const shown = redactKey(key)
      expect(shown).not.toBe(key)
      expect(shown).not.toContain(key)
      const visible = shown.replace('…', '').length
      expect(visible).toBeLessThanOrEqual(Math.min(8, Math.floor(length / 2)))
      expect(shown).toContain('…')
    }
  })
})

describe('storedProfile', () => {
  it('finds only the profiles the file holds', () => {
    const config: ConfigFile = { profiles: { a: { api_key: 'k', base_url: 'u' } } }
    expect(storedProfile(config, 'a')).toEqual({ api_key: 'k', base_url: 'u' })
    expect(storedProfile(config, 'b')).toBeUndefined()
    expect(storedProfile(config, 'constructor')).toBeUndefined()
    expect(storedProfile(config, '__proto__')).toBeUndefined()
  })
})
