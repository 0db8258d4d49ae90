import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { BIN, cleanEnv, expectNoKeyInOutput, ROOT, tempDir } from '../../helpers/cli.js'
import { type Json, seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * The recipes of docs/scripting.md, read from that guide and run exactly as written by bash,
 * with `pay` on the PATH, against a sandbox seeded for them: the guide and this test cannot
 * drift apart.
 */

/** The ```sh blocks under "## Recipes" (up to the next section), keyed by their first line (a comment). */
function guideRecipes(): Map<string, string> {
  const guide = fs.readFileSync(path.join(ROOT, 'docs/scripting.md'), 'utf8')
  const start = guide.indexOf('\n## Recipes\n')
  expect(start).toBeGreaterThan(-1)
  const end = guide.indexOf('\n## ', start + 1)
  const section = guide.slice(start, end === -1 ? undefined : end)
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1])
  return new Map(blocks.map((block) => [block.split('\n')[0], block]))
}

const recipes = guideRecipes()
const DAY = 86_400_000

let sandbox: TestSandbox
const links: Record<string, Json> = {}
const subs: Record<string, string> = {}
let bin: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  // Links created eight days ago: the sandbox (in this process) stamps them with a clock set back.
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.now() - 8 * DAY)
  links.oldUnpaidEur = await seedLink(sandbox, { currency: 'EUR', amount: '10.00', title: 'Old unpaid EUR' })
  links.oldUnpaidUsd = await seedLink(sandbox, { currency: 'USD', amount: '20', title: 'Old unpaid USD' })
  links.oldPaidEur = await seedLink(sandbox, { currency: 'EUR', amount: '25.50', title: 'Old paid EUR' })
  vi.useRealTimers()
  links.newUnpaidEur = await seedLink(sandbox, { currency: 'EUR', amount: '5', title: 'New unpaid EUR' })
  links.newPaidEur = await seedLink(sandbox, { currency: 'EUR', amount: '10.25', title: 'New paid EUR' })
  links.newPaidUsd = await seedLink(sandbox, { currency: 'USD', amount: '100', title: 'New paid USD' })
  for (const paid of [links.oldPaidEur, links.newPaidEur, links.newPaidUsd]) await sandbox.markPaid(paid._id)

  const subscribe = async (email: string) =>
    (await sandbox.request('POST', '/subscriptions', { package_id: sandbox.packageIds[0], email })).body.data
      ._id as string
  subs.jane1 = await subscribe('jane@example.com')
  subs.jane2 = await subscribe('Jane@Example.com')
  subs.janeCancelled = await subscribe('jane@example.com')
  await sandbox.request('PUT', `/subscriptions/${subs.janeCancelled}`, { status: 'cancel' })
  subs.other = await subscribe('other@example.com')

  // `pay` on the PATH, as `npm link` would put it there.
  bin = tempDir('pay-recipes-bin-')
  fs.writeFileSync(path.join(bin, 'pay'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
    mode: 0o755,
  })
})
afterAll(() => sandbox.close())

/** Runs one recipe with bash in a directory of its own; its stdout, stderr, exit code and directory. */
function runRecipe(first: string, target: TestSandbox = sandbox) {
  const script = recipes.get(first)
  if (script === undefined) throw new Error(`docs/scripting.md has no recipe starting "${first}"`)
  const cwd = tempDir('pay-recipe-')
  const env = cleanEnv({ ...target.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` })
  return new Promise<{ code: number | null; stdout: string; stderr: string; cwd: string }>(
    (resolve, reject) => {
      const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        stdout += chunk
      })
      child.stderr.setEncoding('utf8').on('data', (chunk) => {
        stderr += chunk
      })
      child.on('error', reject)
      child.on('close', (code) => {
        expectNoKeyInOutput(['recipe'], { env: target.env }, { code, signal: null, stdout, stderr })
        resolve({ code, stdout, stderr, cwd })
      })
    },
  )
}

const sorted = (text: string) => text.replace(/\n$/, '').split('\n').sort()

describe('the recipes of docs/scripting.md, as written', () => {
  test('the guide has the recipes this test knows, and no other', () => {
    expect([...recipes.keys()]).toEqual([
      '# The ids of unpaid links created more than a week ago',
      '# The total of paid links by currency, one "CURRENCY<TAB>TOTAL" line each',
      '# Cancel every subscription of one customer (--yes: no question; run the part before | alone to see them)',
      '# Every link, one JSON line each, written to a file as the pages arrive',
      '# Cancel every subscription with a charge unpaid for 30 days, with a CSV report (run the part before | alone to see them)',
    ])
  })

  test('ids of unpaid links older than a week', async () => {
    const result = await runRecipe('# The ids of unpaid links created more than a week ago')
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' })
    expect(sorted(result.stdout)).toEqual([links.oldUnpaidEur._id, links.oldUnpaidUsd._id].sort())
  })

  test('total amount of paid links by currency', async () => {
    const result = await runRecipe(
      '# The total of paid links by currency, one "CURRENCY<TAB>TOTAL" line each',
    )
    expect(result).toMatchObject({ code: 0, stdout: 'EUR\t35.75\nUSD\t100\n', stderr: '' })
  })

  test('cancel every subscription of one customer', async () => {
    const result = await runRecipe(
      '# Cancel every subscription of one customer (--yes: no question; run the part before | alone to see them)',
    )
    expect(result.code).toBe(0)
    expect(sorted(result.stdout)).toEqual([`${subs.jane1}\tcancelled\t`, `${subs.jane2}\tcancelled\t`].sort())
    // The plan is shown (on stderr) even with --yes, then the summary.
    const [about, profile, baseUrl, ids, summary, ...rest] = result.stderr.split('\n')
    expect([about, profile, baseUrl, summary, rest]).toEqual([
      'About to cancel 2 subscriptions:',
      '  profile:  (environment)',
      `  base URL: ${sandbox.baseUrl}`,
      'Of 2 subscriptions: 2 cancelled, 0 already cancelled, 0 not cancelled.',
      [''],
    ])
    expect(
      ids
        .replace(/^ {2}ids: +/, '')
        .split(', ')
        .sort(),
    ).toEqual([subs.jane1, subs.jane2].sort())
    const status = async (id: string) =>
      (await sandbox.request('GET', `/subscriptions/${id}`)).body.data.status
    expect(await Promise.all(Object.values(subs).map(status))).toEqual([
      'cancel',
      'cancel',
      'cancel',
      'created',
    ])
  })

  test('every link as JSON lines in a file', async () => {
    const result = await runRecipe('# Every link, one JSON line each, written to a file as the pages arrive')
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' })
    const lines = fs.readFileSync(path.join(result.cwd, 'links.jsonl'), 'utf8').trimEnd().split('\n')
    expect(lines.map((line) => JSON.parse(line)._id).sort()).toEqual(
      Object.values(links)
        .map((l) => l._id)
        .sort(),
    )
  })

  test('cancel every subscription with a charge unpaid for 30 days, with a report', async () => {
    // A sandbox of its own, whose clock is moved 14 months ahead: its charges would show in the
    // links of the other recipes.
    const billing = await startTestSandbox()
    try {
      const [starter, , monthly] = billing.packageIds
      const subscribe = async (email: string, packageId = monthly) =>
        (await billing.request('POST', '/subscriptions', { package_id: packageId, email })).body.data
          ._id as string
      const story = {
        neverPaid: await subscribe('never-paid@example.com'),
        yearlyUnpaid: await subscribe('yearly@example.com', starter),
        paidUp: await subscribe('paid-up@example.com'),
        latestUnpaid: await subscribe('latest-unpaid@example.com'),
        cancelledBefore: await subscribe('gone@example.com'),
      }
      const ahead = new Date(Date.now() + 14 * 31 * DAY)
      const to = new Date(Date.UTC(ahead.getUTCFullYear(), ahead.getUTCMonth(), 10))
        .toISOString()
        .slice(0, 10)
      expect((await billing.request('POST', '/_sandbox/clock', { to })).status).toBe(200)
      const charges = async (id: string) =>
        (await billing.request('GET', `/subscriptions/${id}`)).body.data.payment_links as { _id: string }[]
      const payAll = async (links: { _id: string }[]) => {
        for (const link of links) await billing.request('POST', `/_sandbox/payment-links/${link._id}/pay`)
      }
      await payAll(await charges(story.paidUp))
      await payAll((await charges(story.latestUnpaid)).slice(0, -1))
      await billing.request('PUT', `/subscriptions/${story.cancelledBefore}`, { status: 'cancel' })

      const result = await runRecipe(
        '# Cancel every subscription with a charge unpaid for 30 days, with a CSV report (run the part before | alone to see them)',
        billing,
      )
      expect(result.code).toBe(0)
      const cancelled = [story.yearlyUnpaid, story.neverPaid] // newest first, as listed
      expect(result.stdout).toBe(cancelled.map((id) => `${id}\tcancelled\t\n`).join(''))
      const lines = result.stderr.split('\n')
      expect(lines[0]).toBe('About to cancel 2 subscriptions:')
      expect(lines.slice(-3)).toEqual([
        'Of 2 subscriptions: 2 cancelled, 0 already cancelled, 0 not cancelled.',
        'Report written to cancelled-overdue.csv',
        '',
      ])
      const report = fs.readFileSync(path.join(result.cwd, 'cancelled-overdue.csv'), 'utf8')
      const rows = report.split('\n').filter((line) => line !== '' && !line.startsWith('#'))
      expect(rows.slice(1).map((row) => row.split(',').slice(0, 3).join(','))).toEqual(
        cancelled.map((id) => `${id},true,cancelled`),
      )
      const status = async (id: string) =>
        (await billing.request('GET', `/subscriptions/${id}`)).body.data.status
      expect(await Promise.all(Object.values(story).map(status))).toEqual([
        'cancel',
        'cancel',
        'created',
        'created',
        'cancel',
      ])
    } finally {
      await billing.close()
    }
  })
})
