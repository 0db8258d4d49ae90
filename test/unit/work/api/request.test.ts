import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PayError } from '../../../../src/errors.js'
import { type ApiRequestFlags, apiRequest } from '../../../../src/work/api/request.js'
import { tempDir } from '../../../helpers/cli.js'

const stdin = (text = '') => ({ readStdin: async () => text })
const request = (flags: Partial<ApiRequestFlags>, input = '') =>
  apiRequest({ path: '/payment-links', ...flags }, stdin(input))

async function usage(flags: Partial<ApiRequestFlags>): Promise<string> {
  try {
    await request(flags)
  } catch (error) {
    expect((error as PayError).kind).toBe('usage')
    return [(error as PayError).message, (error as PayError).hint].filter(Boolean).join('\n')
  }
  throw new Error('expected a usage error')
}

const dir = tempDir('pay-api-request-')
const file = (name: string, text: string) => {
  const full = path.join(dir, name)
  fs.writeFileSync(full, text)
  return full
}

describe("pay api's flags as a request", () => {
  it('is a GET without a body, a POST with one, or what -X says (any case)', async () => {
    expect(await request({})).toEqual({ method: 'GET', path: '/payment-links', headers: {} })
    expect((await request({ rawFields: ['title=T'] })).method).toBe('POST')
    expect((await request({ input: file('empty.json', '') })).method).toBe('POST')
    expect((await request({ method: 'patch', rawFields: ['title=T'] })).method).toBe('PATCH')
    expect(await usage({ method: 'TRACE' })).toBe('-X TRACE: pay api sends GET, POST, PUT, PATCH, DELETE.')
  })

  it('-f sends text; -F sends numbers exactly as typed, true, false and null', async () => {
    const { body } = await request({
      rawFields: ['amount=25.50', 'send_email=true', 'title=a=b'],
      fields: [
        'price=25.50',
        'big=12345678901234567890',
        'yes=true',
        'no=false',
        'none=null',
        'word=abc',
        'neg=-1e3',
      ],
    })
    expect(body).toBe(
      '{"amount":"25.50","send_email":"true","title":"a=b","price":25.50,"big":12345678901234567890,' +
        '"yes":true,"no":false,"none":null,"word":"abc","neg":-1e3}',
    )
  })

  it('-F key=@file and @- read text; stdin only once', async () => {
    const notes = file('notes.txt', 'line one\nline two\n')
    const { body } = await request({ fields: [`description=@${notes}`, 'title=@-'] }, 'from stdin')
    expect(JSON.parse(body!)).toEqual({ description: 'line one\nline two\n', title: 'from stdin' })
    expect(await usage({ fields: ['a=@-', 'b=@-'] })).toBe('-F b: stdin can be read only once.')
    expect(await usage({ fields: [`a=@${path.join(dir, 'missing.txt')}`] })).toBe(
      `-F a: cannot read ${path.join(dir, 'missing.txt')} (no such file).`,
    )
  })

  it('nests key[sub]=value and collects key[]=value into a list', async () => {
    const { body } = await request({
      rawFields: ['meta[source]=cli', 'meta[tags][]=a', 'meta[tags][]=b', 'ids[]=x'],
      fields: ['meta[count]=2'],
    })
    expect(JSON.parse(body!)).toEqual({ meta: { source: 'cli', tags: ['a', 'b'], count: 2 }, ids: ['x'] })
    expect(await usage({ rawFields: ['a=1', 'a=2'] })).toBe('"a" is given twice.')
    expect(await usage({ rawFields: ['a=1', 'a[b]=2'] })).toBe(
      '"a[b]": a is given as a value and as an object.',
    )
    expect(await usage({ rawFields: ['a[]x=1'] })).toBe(
      '"a[]x" is not a field name: use name, name[key] or name[] (a list\'s next item).',
    )
    expect(await usage({ rawFields: ['novalue'] })).toBe('-f novalue: expected key=value.')
    expect(await usage({ rawFields: ['=x'] })).toBe('-f =x: expected key=value.')
  })

  it('for a GET, or beside --input, the fields go into the query string', async () => {
    expect(await request({ method: 'GET', fields: ['per_page=200', 'page=2'] })).toEqual({
      method: 'GET',
      path: '/payment-links?per_page=200&page=2',
      headers: {},
    })
    expect(
      (await request({ path: '/payment-links?page=2', method: 'get', rawFields: ['q=a b&c'] })).path,
    ).toBe('/payment-links?page=2&q=a+b%26c')
    const json = file('link.json', '{"amount": 25.50, "title": "T"}\n')
    expect(await request({ input: json, rawFields: ['dry=1'] })).toEqual({
      method: 'POST',
      path: '/payment-links?dry=1',
      body: '{"amount": 25.50, "title": "T"}\n',
      headers: {},
    })
    expect((await request({ method: 'GET', rawFields: ['tags[]=a', 'tags[]=b'] })).path).toBe(
      '/payment-links?tags%5B%5D=a&tags%5B%5D=b',
    )
  })

  it('--input sends a file or stdin exactly as it is, once it is checked to be JSON', async () => {
    expect((await request({ input: '-' }, '[1, 2.50]')).body).toBe('[1, 2.50]')
    expect(await usage({ input: file('bad.json', '{"a":') })).toMatch(
      /^--input .*bad\.json is not JSON: .*\.\nThe body is sent exactly as given; it must be one JSON value\.$/,
    )
  })

  it('-H adds headers, but never Authorization nor what HTTP framing needs', async () => {
    expect((await request({ headers: ['X-Request-Id: r1', 'Idempotency-Key:  k-1 '] })).headers).toEqual({
      'X-Request-Id': 'r1',
      'Idempotency-Key': 'k-1',
    })
    expect(await usage({ headers: ['authorization: Bearer sk_other'] })).toBe(
      "-H authorization: pay api sends the profile's key as Authorization itself, and no other.\n" +
        'Choose the key with --profile or PAY_API_KEY.',
    )
    expect(await usage({ headers: ['Host: evil.example'] })).toBe('-H Host: pay sets this header itself.')
    expect(await usage({ headers: ['no colon'] })).toBe('-H "no colon": expected \'Name: value\'.')
    expect(await usage({ headers: ['X-A: one\rtwo'] })).toBe('-H X-A: the value holds a control character.')
  })

  it('--paginate only follows a GET', async () => {
    expect(await usage({ paginate: true, rawFields: ['a=1'] })).toBe(
      '--paginate follows the pages of a GET, not a POST.',
    )
    expect((await request({ paginate: true })).method).toBe('GET')
  })
})
