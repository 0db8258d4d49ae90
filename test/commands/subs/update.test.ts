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

/**
 * The plan `subs cancel ID` shows, which `subs update ID --status cancelled` shows too: the
 * subscription described when it was read (to ask, or for --dry-run), its id alone with --yes.
 */
const plan = (id: string, described?: string) =>
  [
    'About to cancel 1 subscription:',
    '  profile:  (environment)',
    `  base URL: ${sandbox.baseUrl}`,
    described === undefined ? `  ids:      ${id}` : `  ${id}  ${described} · Starter · 120.00 USD  [created]`,
    '',
  ].join('\n')

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

    const status = await pay(['subs', 'update', sub._id, '--status', 'cancel', '--json', '--yes'])
    expect(status).toMatchObject({ code: 0, stderr: plan(sub._id) })
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
      pay(['subs', 'update', unknownId(3), '--status', 'cancel', '--yes']),
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
    expect(unknown).toMatchObject({
      code: 5,
      stdout: '',
      stderr: `${plan(unknownId(3))}Error: Subscription not found.\n`,
    })
    expect((await held(sub._id)).body.data).toEqual(sub)
  })
})

describe.concurrent('subs update --status cancelled asks as subs cancel does', () => {
  const refusal =
    'Error: Refusing to cancel without confirmation: there is no terminal to confirm on.\n' +
    'Pass --yes to confirm, or --dry-run to see the plan. Nothing was changed.\n'

  test('off a terminal without --yes: the plan, exit 2, nothing sent; other changes with it are not sent either', async () => {
    const sub = await create({ email: 'keep@example.com' })
    const [alone, withEmail] = await Promise.all([
      pay(['subs', 'update', sub._id, '--status', 'cancelled']),
      pay(['subs', 'update', sub._id, '--status', 'cancel', '--email', 'other@example.com', '--json']),
    ])
    expect(alone).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${plan(sub._id, 'keep@example.com')}${refusal}`,
    })
    expect(withEmail).toMatchObject({ code: 2, stdout: '' })
    expect(withEmail.stderr).toBe(
      `${plan(sub._id, 'keep@example.com')}${JSON.stringify({
        error: {
          status: null,
          kind: 'usage',
          exit_code: 2,
          message: 'Refusing to cancel without confirmation: there is no terminal to confirm on.',
          hint: 'Pass --yes to confirm, or --dry-run to see the plan. Nothing was changed.',
        },
      })}\n`,
    )
    expect((await held(sub._id)).body.data).toEqual(sub)
  })

  test('on a terminal it asks "Cancel 1 subscription?": no is exit 130 and nothing sent; yes cancels', async () => {
    const sub = await create({ email: 'asked@example.com' })
    const screen = { env: sandbox.env, terminal: true, colour: false, width: 200 }
    const declined = await runInProcess(['subs', 'update', sub._id, '--status', 'cancelled'], {
      ...screen,
      answers: [false],
    })
    expect(declined.io.asked).toEqual(['Cancel 1 subscription?'])
    expect(declined).toMatchObject({
      code: 130,
      stdout: '',
      stderr: `${plan(sub._id, 'asked@example.com')}Cancelled.\nNothing was cancelled.\n`,
    })
    expect((await held(sub._id)).body.data.status).toBe('created')
    const agreed = await runInProcess(['subs', 'update', sub._id, '--status', 'cancelled', '--json'], {
      ...screen,
      answers: [true],
    })
    expect(agreed.io.asked).toEqual(['Cancel 1 subscription?'])
    expect(agreed).toMatchObject({ code: 0, stderr: plan(sub._id, 'asked@example.com') })
    expect(JSON.parse(agreed.stdout).status).toBe('cancel')
    expect((await held(sub._id)).body.data.status).toBe('cancel')
  })

  test('--dry-run shows the plan (as JSON with --json) and sends nothing; it needs --status', async () => {
    const sub = await create({ email: 'dry@example.com' })
    const [text, json, alone] = await Promise.all([
      pay(['subs', 'update', sub._id, '--status', 'cancelled', '--dry-run']),
      pay(['subs', 'update', sub._id, '--status', 'cancelled', '--dry-run', '--json']),
      pay(['subs', 'update', sub._id, '--email', 'x@example.com', '--dry-run']),
    ])
    const stderr = `${plan(sub._id, 'dry@example.com')}Dry run: nothing was changed.\n`
    expect(text).toMatchObject({ code: 0, stdout: '', stderr })
    expect(json).toMatchObject({ code: 0, stderr })
    expect(JSON.parse(json.stdout)).toEqual({
      dry_run: true,
      action: 'cancel',
      profile: '(environment)',
      base_url: sandbox.baseUrl,
      ids: [sub._id],
    })
    expect(alone).toMatchObject({ code: 2, stdout: '' })
    expect(alone.stderr).toContain('--status')
    expect((await held(sub._id)).body.data).toEqual(sub)
  })

  test('a subscription cancelled already: nothing to ask, the other changes sent', async () => {
    const sub = await create({ email: 'gone@example.com' })
    await sandbox.request('PUT', `/subscriptions/${sub._id}`, { status: 'cancel' })
    const result = await pay([
      'subs',
      'update',
      sub._id,
      '--status',
      'cancelled',
      '--email',
      'new@example.com',
    ])
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect((await held(sub._id)).body.data).toMatchObject({ status: 'cancel', email: 'new@example.com' })
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
        const result = await pay('subs', 'update', id, '--status', word, '--jq', '.status', '--yes')
        expect(result).toMatchObject({ code: 0, stdout: 'cancel\n' })
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
