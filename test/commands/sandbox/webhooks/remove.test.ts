import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { KEY_B, startTestSandbox, type TestSandbox } from '../../../helpers/sandbox.js'
import { addEndpoint, webhooksOf } from '../../../helpers/webhooks.js'

/** `pay sandbox webhooks remove ID`: an endpoint of the key's business removed. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

describe('sandbox webhooks remove', () => {
  test('removes it, says so, prints it; the endpoints left are the others', async () => {
    const kept = await addEndpoint(sandbox, 'http://127.0.0.1:3000/kept')
    const gone = await addEndpoint(sandbox, 'http://127.0.0.1:3000/gone')
    expect(await pay('sandbox', 'webhooks', 'remove', gone._id)).toEqual({
      code: 0,
      signal: null,
      stdout: `_id\t${gone._id}\nurl\thttp://127.0.0.1:3000/gone\nevents\t["payment.created"]\nenabled\ttrue\n`,
      stderr: `Removed endpoint ${gone._id} (http://127.0.0.1:3000/gone) from the sandbox at ${sandbox.baseUrl}.\n`,
    })
    expect((await webhooksOf(sandbox)).endpoints.map((e: { _id: string }) => e._id)).toEqual([kept._id])
  })

  test('an id the business has not: exit 5, another business’s endpoint untouched', async () => {
    const mine = await addEndpoint(sandbox, 'http://127.0.0.1:3000/mine')
    const theirs = await runInProcess(['sandbox', 'webhooks', 'rm', mine._id], {
      env: { ...sandbox.env, PAY_API_KEY: KEY_B },
    })
    expect(theirs).toEqual({
      code: 5,
      signal: null,
      stdout: '',
      stderr: `Error: No webhook endpoint ${mine._id} in the sandbox.\n`,
    })
    expect((await webhooksOf(sandbox)).endpoints.map((e: { _id: string }) => e._id)).toContain(mine._id)
  })

  test('with no sandbox running: from the local store', async () => {
    const dir = tempDir('pay-local-store-')
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
    const added = JSON.parse(
      (await runInProcess(['sandbox', 'webhooks', 'add', 'http://127.0.0.1:3000/x', '--json'], { env }))
        .stdout,
    )
    const removed = await runInProcess(['sandbox', 'webhooks', 'remove', added._id, '--json'], { env })
    expect([removed.code, JSON.parse(removed.stdout)]).toEqual([0, added])
    const again = await runInProcess(['sandbox', 'webhooks', 'remove', added._id], { env })
    expect([again.code, again.stderr]).toEqual([
      5,
      `Error: No webhook endpoint ${added._id} in the sandbox.\n`,
    ])
  })
})
