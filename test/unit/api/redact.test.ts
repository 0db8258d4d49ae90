import { describe, expect, it } from 'vitest'
import { Redactor } from '../../../src/api/redact.js'
import { PayError } from '../../../src/errors.js'

const KEY = 'sk_live_a1b2c3d4e5f6'

describe('Redactor.error', () => {
  it('redacts the key a server echoed and keeps what the error says of the request', () => {
    const cause = new Error('socket hang up')
    const echoed = new PayError(`Server error: bad key ${KEY}`, {
      kind: 'unavailable',
      status: 500,
      hint: `retry with ${KEY}`,
      errors: { [`field_${KEY}`]: [`not ${KEY}`] },
      idempotencyKey: 'idem-123',
      cause,
    })
    const shown = new Redactor(KEY).error(echoed) as PayError
    expect(shown).not.toBe(echoed)
    expect(shown.message).toBe('Server error: bad key [REDACTED]')
    expect(shown.hint).toBe('retry with [REDACTED]')
    expect(shown.errors).toEqual({ 'field_[REDACTED]': ['not [REDACTED]'] })
    expect(shown.kind).toBe('unavailable')
    expect(shown.status).toBe(500)
    expect(shown.idempotencyKey).toBe('idem-123')
    expect(shown.cause).toBe(cause)
  })

  it('keeps "never sent" on a refused connection whose message holds the key', () => {
    const refused = new PayError(`Could not connect to ${KEY}.example`, { kind: 'unavailable', unsent: true })
    const shown = new Redactor(KEY).error(refused) as PayError
    expect(shown.message).toBe('Could not connect to [REDACTED].example')
    expect(shown.unsent).toBe(true)
  })

  it('leaves the error as it is when the key is too short to redact (an empty key is in every text)', () => {
    const refused = new PayError('Could not connect to 127.0.0.1:1', { kind: 'unavailable', unsent: true })
    expect(new Redactor('').error(refused)).toBe(refused)
    expect(new Redactor('x.e').error(refused)).toBe(refused)
  })
})
