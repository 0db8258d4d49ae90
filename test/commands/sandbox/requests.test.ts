import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runInProcess } from '../../helpers/in-process.js'
import { linkCreateArgs } from '../../helpers/links.js'
import { ISO_TIMESTAMP, startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * `pay sandbox requests`: what the key's business sent to the running sandbox, newest
 * last, with the fault each got. (`--follow` runs until Ctrl-C: test/e2e.)
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })
/** `links create` of a 5 EUR link (test/helpers/links.ts), quiet. */
const CREATE = [...linkCreateArgs('5'), '-q']

describe('sandbox requests', () => {
  test('none yet: said on stderr, nothing printed', async () => {
    expect(await pay('sandbox', 'requests')).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: `No requests yet in the sandbox at ${sandbox.baseUrl}.\n`,
    })
  })

  test('each request pay sent, newest last, with its body, Idempotency-Key and fault; --limit the newest N', async () => {
    expect((await pay(...CREATE)).code).toBe(0)
    expect((await pay('sandbox', 'faults', 'set', 'POST /payment-links 503 x1')).code).toBe(0)
    expect((await pay(...CREATE)).code).toBe(6)
    const all = await pay('sandbox', 'requests', '--json')
    expect(all).toMatchObject({ code: 0, stderr: '' })
    const records = JSON.parse(all.stdout)
    const body = { email: 'a@b.co', currency: 'EUR', amount: '5', title: 'T' }
    expect(records).toEqual([
      {
        seq: 1,
        time: expect.stringMatching(ISO_TIMESTAMP),
        method: 'POST',
        path: '/payment-links',
        status: 200,
        ms: expect.any(Number),
        idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/),
        body,
        fault: null,
      },
      {
        seq: 2,
        time: expect.stringMatching(ISO_TIMESTAMP),
        method: 'POST',
        path: '/payment-links',
        status: 503,
        ms: expect.any(Number),
        idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/),
        body,
        fault: '503 x1',
      },
    ])
    // The sandbox's own routes (the fault rules set above) are not kept.
    expect(records.some((r: { path: string }) => r.path.startsWith('/_sandbox/'))).toBe(false)
    const piped = await pay('sandbox', 'requests', '--limit', '1')
    expect(piped.code).toBe(0)
    expect(piped.stdout.split('\n')).toHaveLength(2)
    expect(piped.stdout.split('\t').slice(0, 5)).toEqual([
      '2',
      records[1].time,
      'POST',
      '/payment-links',
      '503',
    ])
    expect(piped.stdout).toContain(`\t${records[1].idempotency_key}\t503 x1\t${JSON.stringify(body)}\n`)
  })

  test('another business sees none of these; --limit 0 is a usage error', async () => {
    const other = await runInProcess(['sandbox', 'requests', '--json'], {
      env: { ...sandbox.env, PAY_API_KEY: 'sk_test_second_business_0123456789' },
    })
    expect(other).toMatchObject({ code: 0, stdout: '[]\n' })
    expect(await pay('sandbox', 'requests', '--limit', '0')).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: --limit: Expected an integer greater than or equal to 1 but received: 0\nSee `pay sandbox requests --help`.\n',
    })
  })
})
