import { describe, expect, it } from 'vitest'
import { rules } from '../../../../src/work/common/field-set.js'
import { LINK_FIELDS } from '../../../../src/work/links/fields.js'
import { TOKEN_FIELDS } from '../../../../src/work/token/create.js'
import {
  AMOUNT_CASES,
  CURRENCY_CASES,
  EMAIL_CASES,
  FIFTY_EMOJI,
  NOT_AMOUNTS,
} from '../../../helpers/field-rules.js'

/** pay's local checks against the table the sandbox is held to as well (test/helpers/field-rules.ts). */
describe('pay’s local field rules', () => {
  it.each(EMAIL_CASES)('the e-mail %j: taken %s, as the service takes it', (email, taken) => {
    expect(rules.email(email, 'email')).toBe(taken ? undefined : 'The email must be a valid email address.')
  })

  it.each(AMOUNT_CASES)('the amount %j: %s', (amount, problem) => {
    expect(rules.amount(amount, 'amount')).toBe(problem === undefined ? undefined : `The amount ${problem}`)
  })

  it.each(NOT_AMOUNTS)('%j is no number at all', (amount) => {
    expect(rules.amount(amount, 'amount')).toBe(
      'The amount must be a decimal number written like 25.50 (digits and one point).',
    )
  })

  it('a title, reference and reference_2 of 50 characters (code points) pass; 51 do not, on links and tokens', () => {
    const problems = (values: Record<string, string>) => LINK_FIELDS.problems(values, false)
    for (const field of ['title', 'reference', 'reference_2']) {
      expect(problems({ [field]: FIFTY_EMOJI })).toEqual({})
      expect(problems({ [field]: `${FIFTY_EMOJI}x` })).toEqual({
        [field]: [`The ${field} may not be greater than 50 characters.`],
      })
    }
    expect(TOKEN_FIELDS.problems({ title: `${FIFTY_EMOJI}x` }, false)).toEqual({
      title: ['The title may not be greater than 50 characters.'],
    })
  })

  it.each(CURRENCY_CASES)('the currency %j: a three-letter code %s', (currency, code) => {
    expect(rules.currency(currency, 'currency') === undefined).toBe(code)
  })
})
