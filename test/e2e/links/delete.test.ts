import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/** `pay links delete` end to end, off a terminal (stdin and stdout piped). */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})

afterAll(async () => {
  await sandbox.close()
})

const UNKNOWN = '0123456789abcdef01234567'

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })

/** What every delete shows on stderr before acting (the target comes from PAY_API_KEY/PAY_BASE_URL). */
const plan = (ids: string[]) =>
  `About to delete ${ids.length} payment link${ids.length === 1 ? '' : 's'}:\n` +
  '  profile:  (environment)\n' +
  `  base URL: ${sandbox.baseUrl}\n` +
  `  ids:      ${ids.join(', ')}\n`

describe.concurrent('links delete', () => {
  test('one id with --yes: deleted, one result row', async () => {
    const link = await seedLink(sandbox)
    const result = await pay('links', 'delete', link._id, '--yes')
    expect(result).toMatchObject({ code: 0, stdout: `${link._id}\tdeleted\t\n`, stderr: plan([link._id]) })
    expect(await storedLink(sandbox, link._id)).toBeUndefined()
  })

  test('several ids with -y: all deleted, a row per id in the order given', async () => {
    const [one, two, three] = [await seedLink(sandbox), await seedLink(sandbox), await seedLink(sandbox)]
    const ids = [three._id, one._id, two._id]
    const result = await pay('links', 'delete', ...ids, '-y')
    expect(result).toMatchObject({
      code: 0,
      stdout: ids.map((id) => `${id}\tdeleted\t\n`).join(''),
      stderr: plan(ids),
    })
    for (const id of ids) expect(await storedLink(sandbox, id)).toBeUndefined()
  })

  test('an unknown id among several: the others deleted, per-id results, exit 7', async () => {
    const [one, two] = [await seedLink(sandbox), await seedLink(sandbox)]
    const ids = [one._id, UNKNOWN, two._id]
    const result = await pay('links', 'delete', ...ids, '--yes')
    expect(result).toMatchObject({
      code: 7,
      stdout: `${one._id}\tdeleted\t\n${UNKNOWN}\tnot_found\tPayment link not found.\n${two._id}\tdeleted\t\n`,
      stderr: `${plan(ids)}Error: 1 of 3 payment links could not be deleted.\n`,
    })
    expect(await storedLink(sandbox, one._id)).toBeUndefined()
    expect(await storedLink(sandbox, two._id)).toBeUndefined()
  })

  test('--json: the per-id results as an array, the error as JSON on stderr, exit 7', async () => {
    const link = await seedLink(sandbox)
    const result = await pay('links', 'delete', UNKNOWN, link._id, '--yes', '--json')
    expect(result.code).toBe(7)
    expect(JSON.parse(result.stdout)).toEqual([
      { id: UNKNOWN, ok: false, status: 'not_found', error: 'Payment link not found.' },
      { id: link._id, ok: true, status: 'deleted', error: null },
    ])
    const lines = result.stderr.trimEnd().split('\n')
    expect(JSON.parse(lines.at(-1) ?? '')).toEqual({
      error: {
        status: null,
        kind: 'partial',
        exit_code: 7,
        message: '1 of 2 payment links could not be deleted.',
      },
    })
  })

  test('a single unknown id: exit 5', async () => {
    const result = await pay('links', 'delete', UNKNOWN, '--yes')
    expect(result).toMatchObject({
      code: 5,
      stdout: `${UNKNOWN}\tnot_found\tPayment link not found.\n`,
      stderr: `${plan([UNKNOWN])}Error: Payment link not found.\n`,
    })
  })

  test('--dry-run: the plan, nothing deleted, exit 0', async () => {
    const link = await seedLink(sandbox)
    const result = await pay('links', 'delete', link._id, '--dry-run')
    expect(result).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `${plan([link._id])}Dry run: nothing was sent.\n`,
    })
    expect(await storedLink(sandbox, link._id)).toEqual(link)
  })

  test('--dry-run --json: the plan as JSON on stdout', async () => {
    const link = await seedLink(sandbox)
    const result = await pay('links', 'delete', link._id, '--dry-run', '--json')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      dry_run: true,
      action: 'delete',
      profile: '(environment)',
      base_url: sandbox.baseUrl,
      ids: [link._id],
    })
    expect(await storedLink(sandbox, link._id)).toEqual(link)
  })

  test('off a terminal without --yes: refused with exit 2, the link still exists', async () => {
    const link = await seedLink(sandbox)
    const result = await pay('links', 'delete', link._id)
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        `${plan([link._id])}Error: Refusing to delete without confirmation: there is no terminal to confirm on.\n` +
        'Pass --yes to confirm, or --dry-run to see the plan. Nothing was sent.\n',
    })
    expect(await storedLink(sandbox, link._id)).toEqual(link)
  })

  test('"y" piped to stdin is not a confirmation', async () => {
    const link = await seedLink(sandbox)
    const result = await runCli(['links', 'delete', link._id], { env: sandbox.env, input: 'y\n' })
    expect(result.code).toBe(2)
    expect(await storedLink(sandbox, link._id)).toEqual(link)
  })

  test('no id: exit 2', async () => {
    const result = await pay('links', 'delete', '--yes')
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^Error: Missing 1 required arg:\nid/)
    expect(result.code).toBe(2)
  })
})
