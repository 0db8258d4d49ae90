import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runInProcess } from '../../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../../helpers/sandbox.js'

/** `pay sandbox faults clear`: every request of the key's business answered normally again. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

describe('sandbox faults clear', () => {
  test('removes every rule: said on stderr, nothing on stdout; requests go through again', async () => {
    expect((await pay('sandbox', 'faults', 'set', 'GET /payment-links 503')).code).toBe(0)
    expect((await sandbox.request('GET', '/payment-links')).status).toBe(503)
    expect(await pay('sandbox', 'faults', 'clear')).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: `No fault rules in the sandbox at ${sandbox.baseUrl} now.\n`,
    })
    expect((await sandbox.request('GET', '/payment-links')).status).toBe(200)
    expect((await pay('sandbox', 'faults', 'list', '--json')).stdout).toBe('[]\n')
  })

  test('with none set it is no error; --json prints [] (the rules left)', async () => {
    expect(await pay('sandbox', 'faults', 'clear', '--json')).toMatchObject({ code: 0, stdout: '[]\n' })
  })
})
