import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runInProcess } from '../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { createSubscription, serverStatuses, unknownId } from '../../helpers/subs.js'

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

describe.concurrent('subs delete', () => {
  const plan = (ids: string[]) =>
    [
      `About to delete ${ids.length} subscription${ids.length === 1 ? '' : 's'}:`,
      '  profile:  (environment)',
      `  base URL: ${sandbox.baseUrl}`,
      `  ids:      ${ids.join(', ')}`,
      'This cannot be undone.',
      '',
    ].join('\n')
  /** The plan of a --dry-run or a refusal: the subscription looked up and described. */
  const described = (id: string) =>
    [
      'About to delete 1 subscription:',
      '  profile:  (environment)',
      `  base URL: ${sandbox.baseUrl}`,
      `  ${id}  ada@example.com · Starter · 120.00 USD  [created]`,
      '  looked up 1: 1 to delete, 0 not found',
      "  total:    120.00 USD (the packages' prices)",
      'This cannot be undone.',
      '',
    ].join('\n')

  test('off a terminal without --yes: refused with exit 2, nothing deleted', async () => {
    const sub = await create()
    const result = await pay(['subs', 'delete', sub._id])
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${described(sub._id)}Error: Refusing to delete without confirmation: there is no terminal to confirm on.\nPass --yes to confirm, or --dry-run to see the plan. Nothing was changed.\n`,
    })
    expect((await held(sub._id)).status).toBe(200)
  })

  test('--dry-run shows the plan (JSON with --json) and deletes nothing', async () => {
    const sub = await create()
    const [text, json] = await Promise.all([
      pay(['subs', 'delete', sub._id, '--dry-run']),
      pay(['subs', 'delete', sub._id, '--dry-run', '--json']),
    ])
    expect(text).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `${described(sub._id)}Dry run: nothing was changed.\n`,
    })
    expect(json).toMatchObject({ code: 0, stderr: `${described(sub._id)}Dry run: nothing was changed.\n` })
    expect(JSON.parse(json.stdout)).toEqual({
      dry_run: true,
      action: 'delete',
      profile: '(environment)',
      base_url: sandbox.baseUrl,
      ids: [sub._id],
      not_found: [],
      invalid: [],
      totals: [{ amount: 120, currency: 'USD' }],
    })
    expect((await held(sub._id)).status).toBe(200)
  })

  test('--yes deletes, saying it cannot be undone', async () => {
    const sub = await create()
    const result = await pay(['subs', 'delete', sub._id, '--yes'])
    expect(result).toMatchObject({
      code: 0,
      stdout: `${sub._id}\tdeleted\t\n`,
      stderr: `${plan([sub._id])}Of 1 subscription: 1 deleted, 0 not deleted.\n`,
    })
    expect(await held(sub._id)).toEqual({ status: 404, body: { message: 'Subscription not found.' } })
  })

  test('several ids with one unknown: the others deleted, one result each, exit 7', async () => {
    const [a, b] = await Promise.all([create(), create()])
    const unknown = unknownId(4)
    const result = await pay(['subs', 'delete', a._id, unknown, b._id, a._id, '--yes', '--json'])
    expect(result.code).toBe(7)
    expect(JSON.parse(result.stdout)).toEqual([
      { id: a._id, ok: true, status: 'deleted', error: null },
      { id: unknown, ok: false, status: 'not_found', error: 'Subscription not found.' },
      { id: b._id, ok: true, status: 'deleted', error: null },
    ])
    expect(result.stderr).toBe(
      `${plan([a._id, unknown, b._id])}Of 3 subscriptions: 2 deleted, 1 not deleted (1 not found).\n{"error":{"status":null,"kind":"partial","exit_code":7,"message":"1 of 3 subscriptions not deleted (1 not found)."}}\n`,
    )
    expect((await held(a._id)).status).toBe(404)
    expect((await held(b._id)).status).toBe(404)
    const statuses = await serverStatuses(sandbox)
    expect(statuses.has(a._id) || statuses.has(b._id)).toBe(false)
  })
})
