import { describe, expect, it } from 'vitest'
import { PayError } from '../../../../src/errors.js'
import { LINK_FIELDS, mergeLinkUpdate } from '../../../../src/work/links/fields.js'
import { linkFilter } from '../../../../src/work/links/filters.js'
import { TestIO } from '../../../helpers/io.js'

const CURRENT = {
  _id: 'lnk_1',
  email: 'old@example.com',
  currency: 'EUR',
  amount: 25.5,
  title: 'Invoice 7',
  reference: 'R-7',
  description: null,
  status: 'Active',
  paid: false,
}

describe('mergeLinkUpdate', () => {
  it('sends the current link with the changes on top; the amount goes back as its decimal text', () => {
    expect(mergeLinkUpdate(CURRENT, { title: 'Invoice 7 (corrected)', reference_2: 'Q3' })).toEqual({
      email: 'old@example.com',
      currency: 'EUR',
      amount: '25.5',
      title: 'Invoice 7 (corrected)',
      reference: 'R-7',
      reference_2: 'Q3',
    })
  })

  it('sends send_email only when the flag was given, and the amount exactly as typed', () => {
    expect(mergeLinkUpdate(CURRENT, { amount: '30.00', send_email: false })).toMatchObject({
      amount: '30.00',
      send_email: false,
    })
    expect(mergeLinkUpdate(CURRENT, { amount: '30.00' })).not.toHaveProperty('send_email')
  })
})

describe('LINK_FIELDS', () => {
  it('maps the flags given to the service’s field names', () => {
    expect(
      LINK_FIELDS.fromFlags({ phone: '+44 1', 'reference-2': 'Q3', 'send-email': true, title: undefined }),
    ).toEqual({ phone_no: '+44 1', reference_2: 'Q3', send_email: true })
  })

  it('checks the local rules of every field given, all at once, under the service’s names', () => {
    const error = (() => {
      try {
        LINK_FIELDS.check({ email: 'nope', currency: 'EURO', amount: '0', title: 'T' })
      } catch (thrown) {
        return thrown as PayError
      }
    })()
    expect(error).toBeInstanceOf(PayError)
    expect([error?.exitCode, error?.errors]).toEqual([
      3,
      {
        email: ['The email must be a valid email address.'],
        currency: ['The currency must be a 3-letter currency code, like EUR.'],
        amount: ['The amount must be greater than 0.'],
      },
    ])
  })

  it('asks for the missing required fields on a terminal, in order', async () => {
    const io = new TestIO({ terminal: true, answers: ['EUR', '9.99', 'Deposit'] })
    const values = LINK_FIELDS.fromFlags({ email: 'jane@example.com' })
    await LINK_FIELDS.fillMissing(values, io)
    expect(io.asked).toEqual(['Currency (e.g. EUR)', 'Amount (e.g. 25.50)', 'Title'])
    expect(values).toEqual({ email: 'jane@example.com', currency: 'EUR', amount: '9.99', title: 'Deposit' })
  })

  it('checks each answer against those before it: an amount its currency cannot have is refused at once', async () => {
    const io = new TestIO({ terminal: true, answers: ['jpy', '12.5'] })
    const values = LINK_FIELDS.fromFlags({ email: 'jane@example.com', title: 'T' })
    await expect(LINK_FIELDS.fillMissing(values, io)).rejects.toThrow(
      'TestIO: "12.5" was refused: The amount must have no decimals for JPY.',
    )
    // The currency was taken, in capitals; nothing was asked after the amount.
    expect(values).toEqual({ email: 'jane@example.com', title: 'T', currency: 'JPY' })
    expect(io.asked).toEqual(['Currency (e.g. EUR)', 'Amount (e.g. 25.50)'])
  })

  it('with --amount given, the currency question refuses a currency it does not fit', async () => {
    const io = new TestIO({ terminal: true, answers: ['EUR'] })
    const values = LINK_FIELDS.fromFlags({ email: 'a@b.co', amount: '1.005', title: 'T' })
    await expect(LINK_FIELDS.fillMissing(values, io)).rejects.toThrow(
      'TestIO: "EUR" was refused: EUR allows at most 2 decimals, and the amount 1.005 has 3: type another currency, or press Ctrl-C and give another --amount.',
    )
  })

  it('with both given, the mismatch is found before any question (exit 3, under --amount)', () => {
    expect(() => LINK_FIELDS.check(LINK_FIELDS.fromFlags({ amount: '1.5', currency: 'jpy' }))).toThrow(
      expect.objectContaining({ errors: { amount: ['The amount must have no decimals for JPY.'] } }),
    )
  })

  it('normalized: values from elsewhere (a CSV row) as they are sent', () => {
    expect(LINK_FIELDS.normalized({ currency: 'usd', amount: '5', send_email: true })).toEqual({
      currency: 'USD',
      amount: '5',
      send_email: true,
    })
  })

  it('names every missing flag off a terminal (exit 2) and asks nothing', async () => {
    const io = new TestIO({ terminal: false })
    const error = await LINK_FIELDS.fillMissing({ currency: 'EUR' }, io).catch((thrown: unknown) => thrown)
    expect([(error as PayError).message, (error as PayError).exitCode]).toEqual([
      'Missing required flags: --email, --amount, --title',
      2,
    ])
    expect(io.asked).toEqual([])
  })
})

describe('linkFilter', () => {
  it('matches status, e-mail and reference in any case, paid exactly', () => {
    const match = linkFilter({ status: 'ACTIVE', email: 'OLD@example.com', paid: false, reference: 'r-7' })
    expect(match?.(CURRENT)).toBe(true)
    expect(match?.({ ...CURRENT, paid: true })).toBe(false)
    expect(linkFilter({ reference: 'R-8' })?.(CURRENT)).toBe(false)
  })

  it('is no filter at all when no flag was given', () => {
    expect(linkFilter({})).toBeUndefined()
  })

  it('refuses a status the service does not have (exit 2), naming the ones it has', () => {
    const error = (() => {
      try {
        linkFilter({ status: 'open' })
      } catch (thrown) {
        return thrown as PayError
      }
    })()
    expect([error?.message, error?.hint, error?.exitCode]).toEqual([
      'Unknown status "open" for --status.',
      'Known: Active.',
      2,
    ])
  })
})
