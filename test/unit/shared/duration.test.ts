import { describe, expect, it } from 'vitest'
import { describeDuration, parseDuration, parsePoint, shift, truncate } from '../../../src/shared/duration.js'

const DAY = 86_400_000

describe('durations', () => {
  it.each([
    ['90s', { months: 0, ms: 90_000 }],
    ['15m', { months: 0, ms: 15 * 60_000 }],
    ['12h', { months: 0, ms: 12 * 3_600_000 }],
    ['30d', { months: 0, ms: 30 * DAY }],
    ['2w', { months: 0, ms: 14 * DAY }],
    ['3mo', { months: 3, ms: 0 }],
    ['1y', { months: 12, ms: 0 }],
    ['1d12h', { months: 0, ms: 1.5 * DAY }],
    ['1y2mo3d', { months: 14, ms: 3 * DAY }],
    ['P1Y2M', { months: 14, ms: 0 }],
    ['P2W', { months: 0, ms: 14 * DAY }],
    ['P1DT12H', { months: 0, ms: 1.5 * DAY }],
    ['PT30M', { months: 0, ms: 30 * 60_000 }],
    ['p1m', { months: 1, ms: 0 }],
    ['0', { months: 0, ms: 0 }],
    [' 30d ', { months: 0, ms: 30 * DAY }],
  ])('%s', (text, duration) => {
    expect(parseDuration(text)).toEqual(duration)
  })

  it.each([
    '',
    '30',
    '-1d',
    '1.5h',
    '3M',
    '3 days',
    'd',
    'P',
    'PT',
    'P1DT',
    '1dd',
    'P1H',
    '1e3d',
    '99999999y',
  ])('%j means nothing', (text) => {
    expect(parseDuration(text)).toBeUndefined()
  })

  it('moves by calendar months first, keeping the day where the month has it, then by the fixed part', () => {
    const at = (iso: string) => Date.parse(iso)
    const iso = (ms: number) => new Date(ms).toISOString()
    expect(iso(shift(at('2027-01-31T10:00:00Z'), { months: 1, ms: 0 }))).toBe('2027-02-28T10:00:00.000Z')
    expect(iso(shift(at('2028-01-31T10:00:00Z'), { months: 1, ms: 0 }))).toBe('2028-02-29T10:00:00.000Z')
    expect(iso(shift(at('2028-02-29T00:00:00Z'), { months: 12, ms: 0 }))).toBe('2029-02-28T00:00:00.000Z')
    expect(iso(shift(at('2027-03-31T00:00:00Z'), { months: 1, ms: DAY }, -1))).toBe(
      '2027-02-27T00:00:00.000Z',
    )
    expect(iso(shift(at('2027-01-15T00:00:00Z'), { months: 0, ms: 30 * DAY }))).toBe(
      '2027-02-14T00:00:00.000Z',
    )
  })

  it('reads as people write them', () => {
    expect(describeDuration({ months: 14, ms: 3 * DAY + 3_600_000 + 5000 })).toBe('1y 2mo 3d 1h 5s')
    expect(describeDuration({ months: 0, ms: 0 })).toBe('0s')
    expect(describeDuration(parseDuration('10m')!)).toBe('10m')
  })
})

describe('points in time', () => {
  it.each([
    ['2027-01-01', '2027-01-01T00:00:00.000Z', 'day'],
    ['2028-02-29', '2028-02-29T00:00:00.000Z', 'day'],
    ['2027-01-01T09:30', '2027-01-01T09:30:00.000Z', 'minute'],
    ['2027-01-01 09:30:15', '2027-01-01T09:30:15.000Z', 'second'],
    ['2027-01-01T09:30:15.5Z', '2027-01-01T09:30:15.500Z', 'millisecond'],
    ['2027-01-01T09:30:00+02:00', '2027-01-01T07:30:00.000Z', 'second'],
    ['2027-01-01T23:30:00-01:00', '2027-01-02T00:30:00.000Z', 'second'],
  ])('%s', (text, iso, precision) => {
    const point = parsePoint(text)
    expect(point && { at: new Date(point.at).toISOString(), precision: point.precision }).toEqual({
      at: iso,
      precision,
    })
  })

  it.each([
    '2027-02-29',
    '2027-13-01',
    '2027-00-10',
    '2027-1-1',
    '2027-01-01T24:00',
    '2027-01-01T10',
    'tomorrow',
    '',
  ])('%j is none', (text) => {
    expect(parsePoint(text)).toBeUndefined()
  })

  it('truncates to the precision it was written in', () => {
    const at = Date.parse('2027-05-06T07:08:09.123Z')
    expect(new Date(truncate(at, 'day')).toISOString()).toBe('2027-05-06T00:00:00.000Z')
    expect(new Date(truncate(at, 'minute')).toISOString()).toBe('2027-05-06T07:08:00.000Z')
    expect(new Date(truncate(at, 'second')).toISOString()).toBe('2027-05-06T07:08:09.000Z')
    expect(truncate(at, 'millisecond')).toBe(at)
  })
})
