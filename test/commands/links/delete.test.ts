import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { expectServiceHeaders, fakeService, ID } from '../../helpers/link-service.js'
import { fakeEnv, seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

describe('against a sandbox', () => {
  /** `pay links delete` end to end, off a terminal (stdin and stdout piped). */

  let sandbox: TestSandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })

  afterAll(async () => {
    await sandbox.close()
  })

  const UNKNOWN = '0123456789abcdef01234567'

  const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

  /** What every delete shows on stderr before acting (the target comes from PAY_API_KEY/PAY_BASE_URL). */
  const plan = (ids: string[]) =>
    `About to delete ${ids.length} payment link${ids.length === 1 ? '' : 's'}:\n` +
    '  profile:  (environment)\n' +
    `  base URL: ${sandbox.baseUrl}\n` +
    `  ids:      ${ids.join(', ')}\n`

  /** The plan of a --dry-run or a refusal: each link looked up and described (up to 20). */
  const described = (links: { _id: string }[], notFound = 0) =>
    `About to delete ${links.length} payment link${links.length === 1 ? '' : 's'}:\n` +
    '  profile:  (environment)\n' +
    `  base URL: ${sandbox.baseUrl}\n` +
    links
      .map((link) => `  ${link._id}  Seeded link · 10.00 EUR · seed@example.com  [Active, unpaid]\n`)
      .join('') +
    `  looked up ${links.length + notFound}: ${links.length} to delete, ${notFound} not found\n` +
    `  total:    ${10 * links.length}.00 EUR\n`

  describe.concurrent('links delete', () => {
    test('one id with --yes: deleted, one result row', async () => {
      const link = await seedLink(sandbox)
      const result = await pay('links', 'delete', link._id, '--yes')
      expect(result).toMatchObject({
        code: 0,
        stdout: `${link._id}\tdeleted\t\n`,
        stderr: `${plan([link._id])}Of 1 payment link: 1 deleted, 0 not deleted.\n`,
      })
      expect(await storedLink(sandbox, link._id)).toBeUndefined()
    })

    test('several ids with -y: all deleted, a row per id in the order given', async () => {
      const [one, two, three] = [await seedLink(sandbox), await seedLink(sandbox), await seedLink(sandbox)]
      const ids = [three._id, one._id, two._id]
      const result = await pay('links', 'delete', ...ids, '-y')
      expect(result).toMatchObject({
        code: 0,
        stdout: ids.map((id) => `${id}\tdeleted\t\n`).join(''),
        stderr: `${plan(ids)}Of 3 payment links: 3 deleted, 0 not deleted.\n`,
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
        stderr: `${plan(ids)}Of 3 payment links: 2 deleted, 1 not deleted (1 not found).\nError: 1 of 3 payment links not deleted (1 not found).\n`,
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
          message: '1 of 2 payment links not deleted (1 not found).',
        },
      })
    })

    test('a single unknown id: exit 5', async () => {
      const result = await pay('links', 'delete', UNKNOWN, '--yes')
      expect(result).toMatchObject({
        code: 5,
        stdout: `${UNKNOWN}\tnot_found\tPayment link not found.\n`,
        stderr: `${plan([UNKNOWN])}Of 1 payment link: 0 deleted, 1 not deleted (1 not found).\nError: Payment link not found.\n`,
      })
    })

    test('--dry-run: the plan, each link described, those not found named, nothing deleted, exit 0', async () => {
      const link = await seedLink(sandbox)
      const result = await pay('links', 'delete', link._id, UNKNOWN, '--dry-run')
      expect(result).toMatchObject({
        code: 0,
        stdout: '',
        stderr: `Warning: Not found, left out: ${UNKNOWN}.\n${described([link], 1)}Dry run: nothing was changed.\n`,
      })
      expect(await storedLink(sandbox, link._id)).toEqual(link)
      // Nothing but ids not found: still no failure in a dry run.
      expect(await pay('links', 'delete', UNKNOWN, '--dry-run')).toMatchObject({
        code: 0,
        stderr: `Warning: Not found, left out: ${UNKNOWN}.\nLooked up 1: 0 to delete, 1 not found.\nDry run: nothing was changed.\n`,
      })
    })

    test('--dry-run at 80 columns: an amount and its currency stay on one line, wherever the edge falls', async () => {
      // Titles of 41 to 44 characters put the edge between `12.34` and `EUR` on a plan's line.
      const titles = [41, 42, 43, 44].map((n) => 'Consulting for the month of November '.padEnd(n, 'x'))
      const links = await Promise.all(titles.map((title) => seedLink(sandbox, { title, amount: '12.34' })))
      const result = await runInProcess(['links', 'delete', ...links.map((l) => l._id), '--dry-run'], {
        env: sandbox.env,
        terminal: true,
        colour: false,
        width: 80,
      })
      expect(result.code).toBe(0)
      const lines = result.stderr.split('\n')
      expect(lines.filter((line) => line.includes('12.34'))).toHaveLength(4)
      for (const line of lines) {
        expect(line.length).toBeLessThanOrEqual(80)
        expect(line).not.toMatch(/12\.34$/)
        expect(line).not.toMatch(/^ *EUR/)
      }
      expect(lines.filter((line) => line.includes('12.34 EUR'))).toHaveLength(4)
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
        not_found: [],
        invalid: [],
        totals: [{ amount: 10, currency: 'EUR' }],
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
          `${described([link])}Error: Refusing to delete without confirmation: there is no terminal to confirm on.\n` +
          'Pass --yes to confirm, or --dry-run to see the plan. Nothing was changed.\n',
      })
      expect(await storedLink(sandbox, link._id)).toEqual(link)
    })

    test('"y" piped to stdin is not a confirmation', async () => {
      const link = await seedLink(sandbox)
      const result = await runInProcess(['links', 'delete', link._id], { env: sandbox.env, input: 'y\n' })
      expect(result.code).toBe(2)
      expect(await storedLink(sandbox, link._id)).toEqual(link)
    })

    test('no id: exit 2', async () => {
      const result = await pay('links', 'delete', '--yes')
      expect(result).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          'Error: No payment link ids given.\nPass ids as arguments, --from-file FILE, or - to read stdin.\n',
      })
    })

    test('ids from stdin or a file, a report per id, and --resume deleting only what is left', async () => {
      const links = [await seedLink(sandbox), await seedLink(sandbox), await seedLink(sandbox)]
      const ids = links.map((link) => link._id)
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pay-delete-'))
      const report = path.join(dir, 'deleted.csv')
      const first = await runInProcess(['links', 'delete', '-', '--yes', '--report', report], {
        env: sandbox.env,
        input: `${ids[0]}\n`,
      })
      expect(first.code).toBe(0)
      const refused = await runInProcess(['links', 'delete', ids[1], '--yes', '--report', report], {
        env: sandbox.env,
      })
      expect(refused).toMatchObject({
        code: 2,
        stderr:
          `Error: --report: ${report} exists already.\n` +
          'Pass --append to add this run to it, or --force to replace it (or resume it with --resume).\n',
      })
      expect(await storedLink(sandbox, ids[1])).toBeDefined()
      const file = path.join(dir, 'ids.txt')
      fs.writeFileSync(file, ids.join('\n'))
      const resumed = await pay('links', 'delete', '--from-file', file, '--resume', report, '--yes')
      expect(resumed).toMatchObject({
        code: 0,
        stdout: `${ids[1]}\tdeleted\t\n${ids[2]}\tdeleted\t\n`,
      })
      expect(resumed.stderr).toContain(`Skipping 1 payment link recorded done in ${report}.\n`)
      expect(resumed.stderr).toContain(
        'Of 2 payment links: 2 deleted, 0 not deleted; 1 done in an earlier run.\n',
      )
      for (const id of ids) expect(await storedLink(sandbox, id)).toBeUndefined()
      const rows = fs
        .readFileSync(report, 'utf8')
        .split('\n')
        .filter((line) => /^[0-9a-f]{24},/.test(line))
        .map((line) => line.split(',').slice(0, 3).join(','))
      expect(rows).toEqual(ids.map((id) => `${id},true,deleted`))
    })
  })
})

describe('the request', () => {
  /**
   * What exactly goes over the wire: the command, run in this process, against a loopback
   * server that records each request (method, path, headers, raw body) and answers like the
   * service.
   */

  describe.concurrent('links get, list, delete: the requests', () => {
    test('delete --yes: one DELETE per id', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'delete', ID, 'other-id', '--yes', '-q'], {
        env: fakeEnv(fake),
      })
      expect(result).toMatchObject({ code: 0, stdout: `${ID}\nother-id\n` })
      expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.body}`).sort()).toEqual([
        `DELETE /payment-links/${ID} `,
        'DELETE /payment-links/other-id ',
      ])
      for (const request of fake.requests) expectServiceHeaders(request)
    })

    test('delete --dry-run reads each link to describe it, and sends no DELETE', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'delete', ID, 'other-id', '--dry-run'], {
        env: fakeEnv(fake),
      })
      expect(result.code).toBe(0)
      expect(result.stderr.endsWith('Dry run: nothing was changed.\n')).toBe(true)
      expect(fake.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
        `GET /payment-links/${ID}`,
        'GET /payment-links/other-id',
      ])
    })

    test('delete off a terminal without --yes reads the link to describe it, and sends no DELETE', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'delete', ID], { env: fakeEnv(fake) })
      expect(result.code).toBe(2)
      expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /payment-links/${ID}`])
    })
  })
})
