import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { runCli, tempDir } from '../../helpers/cli.js'
import type { Json } from '../../helpers/links.js'
import { startProxy } from '../../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { parseCsv } from '../../helpers/subs.js'

/**
 * `pay subs create --from-csv` as finance runs it: customers from a spreadsheet exported with
 * semicolons, a report for Excel (--bom), a kill -9 half-way, and the resume that creates no
 * subscription twice and keeps the report's byte-order mark.
 */

let sandbox: TestSandbox
const dir = tempDir('pay-subs-from-csv-')
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

/** How many subscriptions the sandbox holds for each e-mail starting with `tag`. */
async function byEmail(tag: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  for (let page = 1; ; page += 1) {
    const answer = await sandbox.request('GET', `/subscriptions?per_page=500&page=${page}`)
    for (const sub of answer.body.data.data as Json[]) {
      const email = String(sub.email)
      if (email.startsWith(tag)) counts.set(email, (counts.get(email) ?? 0) + 1)
    }
    if (page >= answer.body.data.last_page) return counts
  }
}

const BOM = '\uFEFF'
/** The report's rows, after its byte-order mark (which it must have). */
function reportRows(file: string) {
  const text = fs.readFileSync(file, 'utf8')
  expect(text.startsWith(`${BOM}line,ok,status,`)).toBe(true)
  return parseCsv(text.slice(1)).rows
}

describe('subs create --from-csv', () => {
  test('kill -9 half-way through 60 rows of a ; file: the resume creates none twice, and the report keeps its --bom', async () => {
    const tag = 'killed'
    const monthly = sandbox.packageIds[2]
    const rows = Array.from(
      { length: 60 },
      (_, i) => `${tag}${i}@example.com;${monthly};+44 20 7946 ${1000 + i}`,
    )
    const file = path.join(dir, 'customers.csv')
    fs.writeFileSync(file, `email;package-id;phone\r\n${rows.join('\r\n')}\r\n`)
    const report = path.join(dir, 'subscribed.csv')
    const proxy = await startProxy(sandbox.baseUrl, () => ({ delayMs: 30 }))
    try {
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }
      const run = startCli(
        ['subs', 'create', '--from-csv', file, '--yes', '--report', report, '--bom', '--concurrency', '4'],
        { env },
      )
      for (;;) {
        const created = fs.existsSync(report)
          ? fs.readFileSync(report, 'utf8').split(',created,').length - 1
          : 0
        if (created >= 10) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      run.child.kill('SIGKILL')
      await run.done
      await proxy.idle()
      expect(fs.readFileSync(report, 'utf8').startsWith(BOM)).toBe(true)

      // The resume gives no --bom: the report keeps the mark it has.
      const resumed = await runCli(
        ['subs', 'create', '--from-csv', file, '--yes', '--resume', report, '--json'],
        {
          env,
        },
      )
      const counts = await byEmail(tag)
      expect([...counts.values()].every((count) => count === 1)).toBe(true)
      const afterResume = reportRows(report)
      expect(afterResume.map((row) => row.line)).toEqual(Array.from({ length: 60 }, (_, i) => String(i + 2)))
      const inFlight = afterResume.filter((row) => row.status === 'unknown')
      expect(resumed.code).toBe(inFlight.length > 0 ? 7 : 0)
      expect(inFlight.length).toBeLessThanOrEqual(4)
      expect(afterResume.filter((row) => row.status === 'created').length + inFlight.length).toBe(60)

      // --retry-unknown settles the rows in flight at the kill with their own keys: each customer once.
      const settled = await runCli(
        ['subs', 'create', '--from-csv', file, '--yes', '--resume', report, '--retry-unknown'],
        { env },
      )
      expect(settled.code).toBe(0)
      expect([...(await byEmail(tag)).entries()].sort()).toEqual(
        Array.from({ length: 60 }, (_, i) => [`${tag}${i}@example.com`, 1] as [string, number]).sort(),
      )
      const final = reportRows(report)
      expect(final.map((row) => row.status)).toEqual(Array(60).fill('created'))
      expect(final.map((row) => row.email)).toEqual(
        Array.from({ length: 60 }, (_, i) => `${tag}${i}@example.com`),
      )
      // The report's ids are what subs cancel takes.
      const plan = await runCli(['subs', 'cancel', '--from-file', report, '--dry-run', '--json'], { env })
      expect(JSON.parse(plan.stdout).ids).toEqual(final.map((row) => row._id))
    } finally {
      await proxy.close()
    }
  })
})
