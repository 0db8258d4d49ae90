import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runInProcess } from '../../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../../helpers/sandbox.js'

/** `pay sandbox faults list`: the rules of the key's business, with what each matched and faulted. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

describe('sandbox faults list', () => {
  test('none set: prints nothing, exit 0', async () => {
    expect(await pay('sandbox', 'faults', 'list')).toEqual({ code: 0, signal: null, stdout: '', stderr: '' })
    expect(JSON.parse((await pay('sandbox', 'faults', 'list', '--json')).stdout)).toEqual([])
  })

  test('each rule with its counts as they move; the seed on stderr; another business sees none', async () => {
    const set = await pay(
      'sandbox',
      'faults',
      'set',
      'GET /payment-links/* 404 x2',
      'POST /subscriptions 500',
      '--seed',
      '3',
    )
    expect(set.code).toBe(0)
    // One GET faulted, one of its two remaining.
    expect((await sandbox.request('GET', '/payment-links/ffff00000000000000000001')).status).toBe(404)
    const piped = await pay('sandbox', 'faults', 'list')
    expect(piped).toEqual({
      code: 0,
      signal: null,
      stdout: 'GET /payment-links/* 404 x2\t1\t1\t1\nPOST /subscriptions 500\t0\t0\t\n',
      stderr: `Seed 3 (the sandbox at ${sandbox.baseUrl}).\n`,
    })
    const asJson = await pay('sandbox', 'faults', 'list', '--json')
    expect(asJson.stderr).toBe('')
    expect(JSON.parse(asJson.stdout)).toEqual([
      {
        rule: 'GET /payment-links/* 404 x2',
        method: 'GET',
        path: '/payment-links/*',
        effect: '404',
        when: 'x2',
        after: false,
        matched: 1,
        faulted: 1,
        remaining: 1,
      },
      {
        rule: 'POST /subscriptions 500',
        method: 'POST',
        path: '/subscriptions',
        effect: '500',
        when: null,
        after: false,
        matched: 0,
        faulted: 0,
        remaining: null,
      },
    ])
    const other = await runInProcess(['sandbox', 'faults', 'list', '--json'], {
      env: { ...sandbox.env, PAY_API_KEY: 'sk_test_second_business_0123456789' },
    })
    expect(other).toMatchObject({ code: 0, stdout: '[]\n' })
  })
})
