import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readSandboxKey } from '../../../../src/shared/sandbox-key.js'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { KEY_B, startTestSandbox, type TestSandbox } from '../../../helpers/sandbox.js'
import { addEndpoint, webhooksOf } from '../../../helpers/webhooks.js'

/** `pay sandbox webhooks list`: the business's signature key and its endpoints. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

describe('sandbox webhooks list', () => {
  test('the signature key, then the endpoints: piped as TSV, --json as the sandbox answers, --jq one of them', async () => {
    const key = (await webhooksOf(sandbox)).signature_key
    expect(key).toMatch(/^sig_sandbox_[0-9a-f]{48}$/)
    expect(await pay('sandbox', 'webhooks', 'list')).toEqual({
      code: 0,
      signal: null,
      stdout: `signature_key\t${key}\n`,
      stderr: '',
    })
    const endpoint = await addEndpoint(sandbox, 'https://shop.example/ipn')
    const piped = await pay('sandbox', 'webhooks', 'ls')
    expect(piped.stdout).toBe(
      `signature_key\t${key}\nwebhook endpoint\t${endpoint._id}\thttps://shop.example/ipn\t["payment.created"]\ttrue\n`,
    )
    const json = await pay('sandbox', 'webhooks', 'list', '--json')
    expect(JSON.parse(json.stdout)).toEqual({
      signature_key: key,
      endpoints: [
        { _id: endpoint._id, url: 'https://shop.example/ipn', events: ['payment.created'], enabled: true },
      ],
    })
    expect((await pay('sandbox', 'webhooks', 'list', '--jq', '.signature_key')).stdout).toBe(`${key}\n`)
    expect((await pay('sandbox', 'webhooks', 'list', '-q')).stdout).toBe(`${key}\n`)
    // The --debug trace of the answer shows it redacted; the data on stdout is the key.
    const traced = await pay('sandbox', 'webhooks', 'list', '--debug', '-q')
    expect([traced.stdout, traced.stderr.includes(key)]).toEqual([`${key}\n`, false])
    expect(traced.stderr).toContain('"signature_key": "[REDACTED]"')
  })

  test('on a terminal: a key and its value, then a table of the endpoints', async () => {
    const key = (await webhooksOf(sandbox)).signature_key
    const shown = await runInProcess(['sandbox', 'webhooks', 'list'], {
      env: sandbox.env,
      terminal: true,
      width: 80,
    })
    expect(shown.code).toBe(0)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the bold of the table's keys and headers
    const lines = shown.stdout.replace(/\u001b\[\d+m/g, '').split('\n')
    expect(lines[0]).toBe(`signature_key  ${key}`)
    expect(lines.slice(1, 4)).toEqual([
      '',
      'Endpoints',
      expect.stringMatching(/^ID\s+URL\s+EVENTS\s+ENABLED$/),
    ])
    expect(lines[4]).toMatch(/^[0-9a-f]{24}\s+https:\/\/shop\.example\/ipn\s+payment\.created\s+true$/)
  })

  test('each business its own key; the local store’s is the one a sandbox started on it has', async () => {
    const other = await runInProcess(['sandbox', 'webhooks', 'list', '--json'], {
      env: { ...sandbox.env, PAY_API_KEY: KEY_B },
    })
    expect(JSON.parse(other.stdout).signature_key).not.toBe((await webhooksOf(sandbox)).signature_key)
    const dir = tempDir('pay-local-store-')
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
    const local = JSON.parse((await runInProcess(['sandbox', 'webhooks', 'list', '--json'], { env })).stdout)
    expect(local).toEqual({
      signature_key: expect.stringMatching(/^sig_sandbox_[0-9a-f]{48}$/),
      endpoints: [],
    })
    // The local store's business is that of the directory's own key, made by that first run.
    const started = await startTestSandbox({ dir, keys: [readSandboxKey(dir) as string] })
    try {
      expect(started.sandbox.webhooks.signatureKeys).toEqual([local.signature_key])
    } finally {
      await started.close()
    }
  })
})
