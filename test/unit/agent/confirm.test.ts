import { describe, expect, it } from 'vitest'
import { CONFIRM_TTL_MS, Confirmations, canonical } from '../../../src/agent/confirm.js'
import { PayError } from '../../../src/errors.js'

/** The confirmations of pay mcp's deletes and cancels (src/agent/confirm.ts): bound, single use, expiring. */

const refusal = (act: () => void): string => {
  try {
    act()
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    expect((error as PayError).kind).toBe('usage')
    return (error as PayError).message
  }
  throw new Error('it was not refused')
}

describe('confirmations', () => {
  it('confirm exactly the tool and arguments they were issued for, once', () => {
    let now = 1_000_000
    const confirmations = new Confirmations(() => now)
    const { confirm, expiresAt } = confirmations.issue('links_delete', { ids: ['a', 'b'] })
    expect(expiresAt).toBe(new Date(1_000_000 + CONFIRM_TTL_MS).toISOString())
    expect(refusal(() => confirmations.check('links_delete', { ids: ['a'] }, confirm))).toMatch(
      /^This confirm string is not for these arguments/,
    )
    expect(refusal(() => confirmations.check('links_delete', { ids: ['b', 'a'] }, confirm))).toMatch(
      /not for these/,
    )
    expect(refusal(() => confirmations.check('subs_delete', { ids: ['a', 'b'] }, confirm))).toMatch(
      /not for these/,
    )
    expect(
      refusal(() => confirmations.check('links_delete', { ids: ['a', 'b'], extra: 1 }, confirm)),
    ).toMatch(/not for these/)
    expect(refusal(() => confirmations.check('links_delete', { ids: ['a', 'b'] }, `${confirm}x`))).toMatch(
      /not for these/,
    )
    expect(refusal(() => confirmations.check('links_delete', { ids: ['a', 'b'] }, 'made up'))).toBe(
      'This confirm string was not made by this server.',
    )
    // None of those used it up.
    confirmations.check('links_delete', { ids: ['a', 'b'] }, confirm)
    confirmations.use(confirm)
    expect(refusal(() => confirmations.check('links_delete', { ids: ['a', 'b'] }, confirm))).toBe(
      'This confirm string was used already: it confirms one action. Nothing was done.',
    )
    now += CONFIRM_TTL_MS + 1
    const later = confirmations.issue('links_delete', { ids: ['c'] })
    now += CONFIRM_TTL_MS + 1
    expect(refusal(() => confirmations.check('links_delete', { ids: ['c'] }, later.confirm))).toBe(
      'This confirm string has expired. Nothing was done.',
    )
  })

  it('are made with a secret of their own server: another server refuses them', () => {
    const one = new Confirmations(() => 0)
    const other = new Confirmations(() => 0)
    const { confirm } = one.issue('subs_cancel', { ids: ['x'] })
    expect(refusal(() => other.check('subs_cancel', { ids: ['x'] }, confirm))).toMatch(
      /not for these arguments/,
    )
  })

  it('bind the arguments’ meaning, whatever the order of their keys', () => {
    expect(canonical({ b: 1, a: [2, { d: 'x', c: null }] })).toBe('{"a":[2,{"c":null,"d":"x"}],"b":1}')
    expect(canonical({ a: undefined, b: 'é' })).toBe('{"b":"é"}')
  })
})
