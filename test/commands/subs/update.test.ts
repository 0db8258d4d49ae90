import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runInProcess } from '../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { createSubscription, recordTsv, serverStatuses, unknownId } from '../../helpers/subs.js'

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

const held = async (id: string, target: TestSandbox = sandbox) =>
  target.request('GET', `/subscriptions/${id}`)

/** A subscription made directly on the server; its full record. */
const create = (fields: Record<string, string> = {}) => createSubscription(sandbox, fields)

describe.concurrent('subs update', () => {
  test('each flag is sent alone and the server holds the change', async () => {
    const sub = await create({ email: 'before@example.com' })
    const email = await pay(['subs', 'update', sub._id, '--email', 'after@example.com', '--json'])
    expect(email).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(email.stdout)).toMatchObject({
      _id: sub._id,
      email: 'after@example.com',
      status: 'created',
    })

    const phone = await pay(['subs', 'update', sub._id, '--phone', '+1 555 0199'])
    const afterPhone = (await held(sub._id)).body.data
    expect(afterPhone).toMatchObject({
      email: 'after@example.com',
      phone_no: '+1 555 0199',
      status: 'created',
    })
    expect(phone).toMatchObject({ code: 0, stderr: '', stdout: recordTsv(afterPhone) })

    const status = await pay(['subs', 'update', sub._id, '--status', 'cancel', '--json'])
    expect(status).toMatchObject({ code: 0, stderr: '' })
    const afterStatus = (await held(sub._id)).body.data
    expect(afterStatus).toMatchObject({
      email: 'after@example.com',
      phone_no: '+1 555 0199',
      status: 'cancel',
    })
    expect(JSON.parse(status.stdout)).toEqual(afterStatus)
  })

  test('nothing to change: exit 2; an invalid status: exit 3; a bad e-mail: exit 3; unknown id: exit 5', async () => {
    const sub = await create({ email: 'unchanged@example.com' })
    const [nothing, badStatus, badEmail, unknown] = await Promise.all([
      pay(['subs', 'update', sub._id]),
      pay(['subs', 'update', sub._id, '--status', 'paused']),
      pay(['subs', 'update', sub._id, '--email', 'nope']),
      pay(['subs', 'update', unknownId(3), '--status', 'cancel']),
    ])
    expect(nothing).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Error: Nothing to change.\nGive --email, --phone or --status.\n',
    })
    expect(badStatus).toMatchObject({
      code: 3,
      stdout: '',
      // Checked locally now, naming what is allowed (nothing is sent).
      stderr:
        'Error: The given data was invalid.\n' +
        '  --status  The status an update can set is cancel (pay shows it as cancelled; cancelled and canceled are taken too).\n',
    })
    expect(badEmail).toMatchObject({
      code: 3,
      stdout: '',
      stderr: 'Error: The given data was invalid.\n  --email  The email must be a valid email address.\n',
    })
    expect(unknown).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Subscription not found.\n' })
    expect((await held(sub._id)).body.data).toEqual(sub)
  })
})

describe('values', () => {
  /**
   * Values that used to go wrong quietly: a redirect URL the customer never gets
   * back from, the status word pay itself prints, a currency change a link's amount cannot take, a
   * currency in lower case. Each refused locally (exit 3, under the flag, nothing sent) or sent as
   * the service spells it.
   */

  let sandbox: TestSandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox.close())

  const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

  describe('subs update --status', () => {
    const subscription = async () => {
      const answer = await sandbox.request('POST', '/subscriptions', {
        package_id: sandbox.packageIds[0],
        email: 'status@example.com',
      })
      return answer.body.data._id as string
    }

    test.each([['cancelled'], ['Canceled'], ['CANCEL']])(
      '%s, a word pay prints or the service’s own in any case: sent as "cancel"',
      async (word) => {
        const id = await subscription()
        const result = await pay('subs', 'update', id, '--status', word, '--jq', '.status')
        expect(result).toMatchObject({ code: 0, stdout: 'cancel\n', stderr: '' })
        expect((await serverStatuses(sandbox)).get(id)).toBe('cancel')
      },
    )

    test('a status an update cannot set: exit 3, the allowed value named, nothing sent', async () => {
      const id = await subscription()
      const result = await pay('subs', 'update', id, '--status', 'paused')
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr:
          'Error: The given data was invalid.\n' +
          '  --status  The status an update can set is cancel (pay shows it as cancelled; cancelled and canceled are taken too).\n',
      })
      expect((await serverStatuses(sandbox)).get(id)).toBe('created')
    })
  })
})
