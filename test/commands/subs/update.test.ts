import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { serverStatuses } from '../../helpers/subs.js'

describe('values', () => {
  /**
   * Values that used to go wrong quietly (issue 23 item 9): a redirect URL the customer never gets
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

  /** The links the sandbox holds for this customer e-mail. */
  const _linksFor = async (email: string) => {
    const answer = await sandbox.request('GET', '/payment-links?per_page=500')
    return (answer.body.data.data as { email: string }[]).filter((link) => link.email === email)
  }

  const _createWith = (email: string, ...more: string[]) =>
    pay('links', 'create', '--email', email, '--currency', 'EUR', '--amount', '5', '--title', 'T', ...more)

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
