import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runInProcess } from '../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { createSubscription, recordTsv, unknownId } from '../../helpers/subs.js'

/**
 * Every `pay subs` command but cancel, run in this process against a real sandbox,
 * with exact stdout, stderr and exit code, and what the sandbox holds afterwards.
 */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(async () => {
  await sandbox?.close()
})

const pay = (args: string[], target: TestSandbox = sandbox, input?: string) =>
  runInProcess(args, { env: target.env, input })

/** A subscription made directly on the server; its full record. */
const create = (fields: Record<string, string> = {}) => createSubscription(sandbox, fields)

describe.concurrent('subs get', () => {
  test('--json is the record the server holds; TSV shows the package; unknown id exit 5', async () => {
    const sub = await create({ email: 'get@example.com', phone_no: '555 0100' })
    const [json, tsv, missing, missingJson] = await Promise.all([
      pay(['subs', 'get', sub._id, '--json']),
      pay(['subs', 'get', sub._id]),
      pay(['subs', 'get', unknownId(2)]),
      pay(['subs', 'get', unknownId(2), '--json']),
    ])
    expect(json).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(json.stdout)).toEqual(sub)
    expect(tsv).toMatchObject({ code: 0, stderr: '', stdout: recordTsv(sub) })
    expect(missing).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Subscription not found.\n' })
    expect(missingJson).toMatchObject({ code: 5, stdout: '' })
    expect(JSON.parse(missingJson.stderr)).toEqual({
      error: { status: 404, kind: 'not_found', exit_code: 5, message: 'Subscription not found.' },
    })
  })

  test('no id: exit 2', async () => {
    const result = await pay(['subs', 'get'])
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Error: Missing 1 required arg:\nid  Subscription id (_id).\nSee `pay subs get --help`.\n',
    })
  })
})
