import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { journalEntries, journalIn } from '../../../helpers/journal.js'
import { KEY_B, OBJECT_ID, startTestSandbox, type TestSandbox } from '../../../helpers/sandbox.js'
import { webhooksOf } from '../../../helpers/webhooks.js'

/** `pay sandbox webhooks add URL`: an endpoint of the key's business, through the running sandbox or the local store. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })
const URL_A = 'http://127.0.0.1:3000/webhooks/pay'

describe('sandbox webhooks add', () => {
  test('the change log names the endpoint it created, as it names a created link', async () => {
    const dir = tempDir('pay-journal-')
    const added = await runInProcess(
      ['sandbox', 'webhooks', 'add', 'http://127.0.0.1:3000/journal', '--json'],
      {
        env: { ...sandbox.env, PAY_JOURNAL_FILE: journalIn(dir) },
      },
    )
    const { _id } = JSON.parse(added.stdout)
    const shape = journalEntries(journalIn(dir)).map((e) => [
      e.phase,
      e.method,
      e.path,
      e.id ?? '-',
      e.status ?? '-',
    ])
    expect(shape).toEqual([
      ['intent', 'POST', '/_sandbox/webhooks', '-', '-'],
      ['outcome', 'POST', '/_sandbox/webhooks', _id, 200],
    ])
    expect((await pay('sandbox', 'webhooks', 'remove', _id)).code).toBe(0)
  })

  test('through the running sandbox: the endpoint, said on stderr; the same URL again is the same endpoint', async () => {
    const added = await pay('sandbox', 'webhooks', 'add', URL_A)
    const [id] = /^_id\t(\w+)$/m.exec(added.stdout)?.slice(1) ?? []
    expect(id).toMatch(OBJECT_ID)
    expect(added).toEqual({
      code: 0,
      signal: null,
      stdout: `_id\t${id}\nurl\t${URL_A}\nevents\t["payment.created"]\nenabled\ttrue\n`,
      stderr: `Payment attempts are notified to ${URL_A} (endpoint ${id}) by the sandbox at ${sandbox.baseUrl}.\n`,
    })
    const again = await pay('sandbox', 'webhooks', 'add', URL_A, '--json')
    expect([again.code, JSON.parse(again.stdout)]).toEqual([
      0,
      { _id: id, url: URL_A, events: ['payment.created'], enabled: true },
    ])
    expect((await webhooksOf(sandbox)).endpoints).toEqual([JSON.parse(again.stdout)])
    // The other business has none of them.
    const other = await runInProcess(['sandbox', 'webhooks', 'list', '--json'], {
      env: { ...sandbox.env, PAY_API_KEY: KEY_B },
    })
    expect(JSON.parse(other.stdout).endpoints).toEqual([])
  })

  test('what is not an http(s) URL: exit 3, under the field, nothing added', async () => {
    const before = (await webhooksOf(sandbox)).endpoints
    const refused = await pay('sandbox', 'webhooks', 'add', 'ftp://files.example/hook')
    expect(refused).toEqual({
      code: 3,
      signal: null,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n  url  The url must be an http:// or https:// URL of at most 2048 characters.\n',
    })
    expect((await webhooksOf(sandbox)).endpoints).toEqual(before)
  })

  test('a URL with a user name or password: exit 3, under the field, nothing added, the password never shown', async () => {
    const before = (await webhooksOf(sandbox)).endpoints
    const refused = await pay('sandbox', 'webhooks', 'add', 'http://shop:s3cret@127.0.0.1:3000/hook')
    expect(refused).toEqual({
      code: 3,
      signal: null,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n  url  The url may not hold a user name or password: a notification carries no Authorization.\n',
    })
    expect((await webhooksOf(sandbox)).endpoints).toEqual(before)
    const local = await runInProcess(
      ['sandbox', 'webhooks', 'add', 'https://shop@hooks.example/', '--json'],
      {
        env: { PAY_SANDBOX_DIR: tempDir('pay-local-store-'), PAY_SANDBOX_PORT: '1' },
      },
    )
    expect([local.code, JSON.parse(local.stderr).error.errors]).toEqual([
      3,
      { url: ['The url may not hold a user name or password: a notification carries no Authorization.'] },
    ])
  })

  test('with no sandbox running: in the local store, said so; refused there the same way', async () => {
    const dir = tempDir('pay-local-store-')
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
    const added = await runInProcess(['sandbox', 'webhooks', 'add', URL_A, '--json'], { env })
    expect([added.code, added.stderr]).toEqual([0, ''])
    const endpoint = JSON.parse(added.stdout)
    expect(endpoint).toEqual({
      _id: expect.stringMatching(OBJECT_ID),
      url: URL_A,
      events: ['payment.created'],
      enabled: true,
    })
    const said = await runInProcess(['sandbox', 'webhooks', 'add', URL_A], { env })
    expect(said.stderr).toBe(
      `Payment attempts are notified to ${URL_A} (endpoint ${endpoint._id}) by the local sandbox store ${dir} ` +
        '(no sandbox is running at http://127.0.0.1:1).\n',
    )
    const listed = await runInProcess(['sandbox', 'webhooks', 'list', '--json'], { env })
    expect(JSON.parse(listed.stdout).endpoints).toEqual([endpoint])
    const refused = await runInProcess(['sandbox', 'webhooks', 'add', 'mailto:a@b.co', '--json'], { env })
    expect(refused.code).toBe(3)
    expect(JSON.parse(refused.stderr).error.errors).toEqual({
      url: ['The url must be an http:// or https:// URL of at most 2048 characters.'],
    })
  })
})
