/**
 * One table of cases the sandbox and pay's local checks must agree on: the service's e-mail rule
 * (Laravel's `email`, egulias/EmailValidator's RFCValidation), amounts near a decimal, and the
 * fields the service's documentation bounds. test/unit/sandbox/service/field-rules.test.ts runs it
 * against the sandbox over HTTP, test/unit/work/common/field-rules.test.ts against pay's rules.
 */

/** An address, and whether the service takes it. */
export const EMAIL_CASES: [string, boolean][] = [
  ['a@b.co', true],
  ['a@localhost', true],
  ['jane@example', true],
  ['first.last@example.com', true],
  ['a+tag@example.com', true],
  ["o'brien@example.ie", true],
  ['user_name@sub-domain.example.co.uk', true],
  ['x@1.2.3.4', true],
  ['"a..b"@c.co', true],
  ['"a@b"@c.co', true],
  ['"quoted space"@example.com', true],
  ['"esc\\"aped"@example.com', true],
  ['a@[192.0.2.1]', true],
  ['a@[IPv6:2001:db8::1]', true],
  ['jöran@exämple.se', true],
  [`${'a'.repeat(65)}@b.co`, true],
  [`a@${'b'.repeat(63)}.co`, true],
  ['a..b@c.co', false],
  ['.a@c.co', false],
  ['a.@c.co', false],
  ['a@.c.co', false],
  ['a@c..co', false],
  ['a@c.co.', false],
  ['a@-c.co', false],
  ['a@c-.co', false],
  ['a@', false],
  ['@c.co', false],
  ['a', false],
  ['a b@c.co', false],
  ['a@b c.co', false],
  ['a,b@c.co', false],
  ['a@b@c.co', false],
  ['a@b_c.co', false],
  ['a<b>@c.co', false],
  ['a(comment)@b.co', false],
  ['a\tb@c.co', false],
  ['a@b.co\n', false],
  ['😀@b.co', false],
  ['a@😀.co', false],
  ['"unclosed@b.co', false],
  ['"a"b@c.co', false],
  ['a@[300.1.1.1]', false],
  [`a@${'b'.repeat(64)}.co`, false],
  [`a@${`${'b'.repeat(60)}.`.repeat(5)}co`, false],
]

/** An amount as typed, and the end of the sentence that says what is wrong (undefined: a number the rules take). */
export const AMOUNT_CASES: [string, string | undefined][] = [
  ['25.50', undefined],
  ['007.10', undefined],
  ['-1', 'must be greater than 0.'],
  ['-0.5', 'must be greater than 0.'],
  ['+5', 'must be written without a sign.'],
  ['1e3', 'must be written out in digits, not with an exponent like 1e3.'],
  ['2.5E-2', 'must be written out in digits, not with an exponent like 1e3.'],
  [' 5', 'must not begin or end with a space.'],
  ['5 ', 'must not begin or end with a space.'],
  ['5.', 'must have digits after its decimal point, like 5.00.'],
  ['.5', 'must have a digit before its decimal point, like 0.50.'],
  ['1.2.3', 'must have one decimal point at most.'],
  ['0x10', 'must be written in decimal digits, without a 0x, 0o or 0b prefix.'],
  ['0b101', 'must be written in decimal digits, without a 0x, 0o or 0b prefix.'],
  ['25,50', 'must use a point for its decimals and no thousands separator, like 1000.50.'],
  ['1,000.50', 'must use a point for its decimals and no thousands separator, like 1000.50.'],
]

/** Amounts that are no number at all: each side says so its own way. */
export const NOT_AMOUNTS = ['abc', '$5', '5 EUR', 'Infinity', '١٢']

/** 50 characters, each outside the Basic Multilingual Plane (two UTF-16 units, one character). */
export const FIFTY_EMOJI = '😀'.repeat(50)

/** A currency as sent, and whether it is a three-letter code. */
export const CURRENCY_CASES: [string, boolean][] = [
  ['EUR', true],
  ['usd', true],
  ['EU', false],
  ['EURO', false],
  ['E1R', false],
  ['ÉUR', false],
  ['€', false],
]
