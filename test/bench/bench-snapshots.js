/**
 * 8. Snapshots of the sandbox, through the library `pay-cli/sandbox` (this
 * build's dist/sandbox.js, in the bench process):
 *   (a) saving and restoring a snapshot of a store of 100,000 payment links (seeded untimed by
 *       seed-store.ts, as bench-store.js does), the server running on it;
 *   (b) a suite's usual pattern, the same 100 links before each of 50 tests: `restore(name)`
 *       before each, against a reset and the 100 links made again through the API (POST
 *       /payment-links, one keep-alive client, one at a time).
 * Times are reported, never asserted.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleSeeder, seed } from './bench-store.js'
import { log, median, ms, QUICK, ROOT, ratio, sandboxKeyOf, tempDir } from './lib.js'

const BIG = QUICK ? 10_000 : 100_000
const RESTORES = QUICK ? 2 : 5
const TESTS = QUICK ? 10 : 50
const RECORDS = 100
const LINK = { email: 'ada@example.com', currency: 'EUR', amount: '25.50', title: 'Invoice 42' }

const time = (act) => {
  const started = process.hrtime.bigint()
  act()
  return Number(process.hrtime.bigint() - started) / 1e6
}
const timeAsync = async (act) => {
  const started = process.hrtime.bigint()
  await act()
  return Number(process.hrtime.bigint() - started) / 1e6
}

export async function benchSnapshots() {
  const library = path.join(ROOT, 'dist/sandbox.js')
  if (!fs.existsSync(library)) throw new Error('no dist/sandbox.js: npm run build first')
  const { startSandbox } = await import(pathToFileURL(library).href)
  const rows = []

  // (a) 100,000 links: save and restore.
  const dir = tempDir('snapshots-big')
  seed(await bundleSeeder(), dir, BIG)
  // seed() fills the business of the directory's own key, which the sandbox serves when given none.
  const key = sandboxKeyOf(dir)
  const big = await startSandbox({ dir, keys: [key] })
  const saves = []
  const restores = []
  try {
    for (let n = 0; n < RESTORES; n++) saves.push(time(() => big.snapshot('big')))
    for (let n = 0; n < RESTORES; n++) restores.push(time(() => big.restore('big')))
    const answer = await fetch(`${big.baseUrl}/payment-links?per_page=1`, {
      headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
    })
    const total = (await answer.json()).data.total
    if (total !== BIG) throw new Error(`after the restores the store holds ${total} links, not ${BIG}`)
  } finally {
    await big.close()
  }
  const bytes = fs.statSync(path.join(dir, 'snapshots', 'big.db')).size
  const count = BIG.toLocaleString('en')
  rows.push({
    what: `save a snapshot of ${count} links (${(bytes / 2 ** 20).toFixed(1)} MB)`,
    value: ms(median(saves)),
  })
  rows.push({ what: `restore it, the server running`, value: ms(median(restores)) })
  log(`  save ${saves.map(ms).join(', ')}; restore ${restores.map(ms).join(', ')}`)

  // (b) before each of TESTS tests: restore, against reset + RECORDS links through the API.
  const sandbox = await startSandbox()
  const create = async () => {
    for (let n = 0; n < RECORDS; n++) {
      const answer = await fetch(`${sandbox.baseUrl}/payment-links`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${sandbox.keys[0]}`,
          Accept: 'application/json',
          'Content-Type': 'application/json',
        },
        body: JSON.stringify(LINK),
      })
      if (answer.status !== 200) throw new Error(`POST /payment-links answered ${answer.status}`)
      await answer.arrayBuffer()
    }
  }
  let byRestore
  let byApi
  try {
    await create()
    sandbox.snapshot('base')
    // Interleaved, so that both see the same machine load.
    const restoreEach = []
    const recreateEach = []
    for (let n = 0; n < TESTS; n++) {
      restoreEach.push(time(() => sandbox.restore('base')))
      recreateEach.push(
        await timeAsync(async () => {
          sandbox.reset()
          await create()
        }),
      )
    }
    byRestore = restoreEach.reduce((a, b) => a + b, 0)
    byApi = recreateEach.reduce((a, b) => a + b, 0)
    rows.push({
      what: `before each of ${TESTS} tests: restore a snapshot of ${RECORDS} links (total; median each ${ms(median(restoreEach))})`,
      value: ms(byRestore),
      ratio: ratio(byRestore / byApi),
    })
    rows.push({
      what: `before each of ${TESTS} tests: reset, then ${RECORDS} links through the API (total; median each ${ms(median(recreateEach))})`,
      value: ms(byApi),
      ratio: ratio(1),
    })
  } finally {
    await sandbox.close()
  }
  return {
    title: '8. Sandbox snapshots (the library pay-cli/sandbox)',
    rows,
    notes: [
      `(a) A store of ${count} links seeded untimed by seed-store.ts; \`snapshot()\` (VACUUM INTO) and ` +
        `\`restore()\` (ATTACH, every table replaced in one transaction) ${RESTORES} times each, the ` +
        'sandbox server open on the store; medians.',
      `(b) The same ${RECORDS} links before each of ${TESTS} tests: \`restore('base')\` against ` +
        `\`reset()\` and ${RECORDS} sequential POST /payment-links from one client in the bench process, ` +
        'the two interleaved; ratio to the API way.',
    ],
  }
}
