import { describe, expect, it } from 'vitest'
import { Redactor } from '../../../src/api/redact.js'
import { redactPath } from '../../../src/sandbox/handlers/double/recorded-requests.js'
import { loggedPath } from '../../../src/sandbox/http/request.js'
import { holdsSecret, redactSecrets } from '../../../src/shared/key-forms.js'
import { findCanary } from '../../helpers/leak.js'

const KEY = 'sk_live_formscanary_0a1B2c'

const hex = (char: string) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`
/** The key as a path or query may carry it. */
const FORMS: [string, string][] = [
  ['as it is', KEY],
  ['every character encoded', [...KEY].map(hex).join('')],
  ['in lower-case hex', [...KEY].map(hex).join('').toLowerCase()],
  ['every other character encoded', [...KEY].map((c, i) => (i % 2 ? hex(c) : c)).join('')],
  ['only the underscores', KEY.replace(/_/g, '%5F')],
  ['encoded twice', [...KEY].map((c) => `%25${hex(c).slice(1)}`).join('')],
  ['its first character encoded twice', `%2573${KEY.slice(1)}`],
]

describe('the key in every form text can carry it', () => {
  it.each(FORMS)('%s: found, and replaced by [REDACTED] wherever it is', (_, form) => {
    const text = `/payment-links/${form}?q=${form}&ok=1`
    expect(holdsSecret(text, [KEY])).toBe(true)
    expect(redactSecrets(text, [KEY])).toBe('/payment-links/[REDACTED]?q=[REDACTED]&ok=1')
    // pay's redaction (the --debug trace, errors, the journal) and the sandbox's logs alike.
    expect(new Redactor(KEY).text(text)).toBe('/payment-links/[REDACTED]?q=[REDACTED]&ok=1')
    expect(loggedPath(`/payment-links/${form}?id=${form}`, [KEY])).toBe(
      '/payment-links/[REDACTED]?id=[REDACTED]',
    )
    expect(redactPath(`/payment-links/${form}?page=${form}`, [KEY])).toBe(
      '/payment-links/[REDACTED]?page=[REDACTED]',
    )
  })

  it('leaves what is not the key: a part of it, another key, a malformed escape', () => {
    for (const text of [
      KEY.slice(0, -1),
      'sk_live_formscanary_0a1B2d',
      `${KEY.slice(0, 5)}%zz${KEY.slice(5)}`,
      '%',
    ]) {
      expect([text, holdsSecret(text, [KEY]), redactSecrets(text, [KEY])]).toEqual([text, false, text])
    }
    // Case counts in the key itself (only hex digits take either case).
    expect(holdsSecret(KEY.toUpperCase(), [KEY])).toBe(false)
    // A key too short to tell from text is never looked for.
    expect(redactSecrets('abc abc', ['abc'])).toBe('abc abc')
  })

  it('the leak scanner finds the canary in these forms too', () => {
    const canary = 'sk_live_CANARY_7f3e9d2c1b0a'
    const encoded = [...canary].map(hex).join('')
    expect(findCanary(`GET /payment-links/${encoded}`)).toContain(
      `${JSON.stringify(canary)} (percent-encoded) at 19`,
    )
    expect(findCanary('GET /payment-links/[REDACTED]')).toEqual([])
  })
})
