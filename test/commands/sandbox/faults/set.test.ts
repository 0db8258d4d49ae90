import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { linkCreateArgs } from '../../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../../helpers/sandbox.js'

/**
 * `pay sandbox faults set RULE...`: the rules of the key's business replaced in the
 * running sandbox, each checked first (exit 2, nothing set); a request then gets the fault.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })
// The rules and their counts (not meta.timestamp, which moves on with the clock).
const rules = async () => (await sandbox.request('GET', '/_sandbox/faults')).body.data

describe('sandbox faults set', () => {
  test('sets the rules, printed one per line with their counts; the next matching request gets the fault', async () => {
    const result = await pay(
      'sandbox',
      'faults',
      'set',
      'POST /payment-links 503 x1',
      'GET /payment-links/* latency=10ms',
      '--seed',
      '7',
    )
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: 'POST /payment-links 503 x1\t0\t0\t1\nGET /payment-links/* latency=10ms\t0\t0\t\n',
      stderr: `2 fault rules set in the sandbox at ${sandbox.baseUrl} (seed 7).\n`,
    })
    const failed = await pay(...linkCreateArgs('5'))
    expect(failed.code).toBe(6)
    expect(failed.stderr).toMatch(
      /^Error: Service Unavailable: a fault of the pay sandbox \[503 x1\]; nothing was done\.\n/,
    )
    // x1: the next one goes through.
    const created = await pay(...linkCreateArgs('5'), '-q')
    expect(created.code).toBe(0)
    expect(JSON.stringify(await rules())).toContain('"faulted":1')
  })

  test('--json prints the rules set, nothing else; setting again replaces them', async () => {
    const result = await pay('sandbox', 'faults', 'set', '* /subscriptions/* 429 50%', '--json')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual([
      {
        rule: '* /subscriptions/* 429 50%',
        method: '*',
        path: '/subscriptions/*',
        effect: '429',
        when: '50%',
        after: false,
        matched: 0,
        faulted: 0,
        remaining: null,
      },
    ])
    // --json says nothing on stderr: the rules are the answer.
    expect(result.stderr).toBe('')
    expect((await rules()).rules).toHaveLength(1)
  })

  test('a rule that cannot be read, or none: exit 2, naming it, and the rules kept', async () => {
    const before = JSON.stringify((await rules()).data)
    const [bad, none] = await Promise.all([
      pay('sandbox', 'faults', 'set', 'POST /x 99'),
      pay('sandbox', 'faults', 'set'),
    ])
    expect(bad).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: 99 is not a status a fault can answer: give one from 400 to 599 (in "POST /x 99").\n' +
        'A rule is METHOD PATH EFFECT [xN|P%] [after], e.g. "POST /payment-links 503 x2".\n',
    })
    expect(none).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Error: Give at least one fault rule, e.g. "POST /payment-links 503 x2".\n',
    })
    expect(JSON.stringify((await rules()).data)).toBe(before)
  })

  test('no sandbox running at the built-in profile’s address: exit 6, and how to start one', async () => {
    const result = await runInProcess(['sandbox', 'faults', 'set', 'POST /payment-links 503'], {
      env: { PAY_SANDBOX_DIR: tempDir('pay-faults-none-'), PAY_SANDBOX_PORT: '1' },
    })
    expect(result).toMatchObject({ code: 6, stdout: '' })
    expect(result.stderr).toBe(
      'Error: No sandbox of yours is running at http://127.0.0.1:1.\n' +
        '`pay sandbox faults set` acts on a running sandbox: start one with `pay sandbox start` (or point at yours with --base-url or PAY_SANDBOX_PORT).\n',
    )
  })
})
