#!/usr/bin/env node
/**
 * `npm run test:mutation [-- STRYKER OPTIONS]` (CONTRIBUTING.md, Mutation testing): StrykerJS with
 * stryker.config.mjs, then each mutated file's score as Stryker counts it (killed and timed out
 * over every mutant but those disabled by a comment or that do not compile), and exit 1 when one
 * is under MIN_SCORE. Stryker's own `thresholds.break` judges only the total, which a strong file
 * can carry a weak one past.
 *
 *   npm run test:mutation                                        # every file of the config
 *   npm run test:mutation -- --mutate src/api/reader.ts          # one file
 *   npm run test:mutation -- --concurrency 2
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const MIN_SCORE = 85
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const reportFile = path.join(root, 'reports/mutation/mutation.json')

fs.rmSync(reportFile, { force: true })
const stryker = spawnSync(path.join(root, 'node_modules/.bin/stryker'), ['run', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
})
if (stryker.status !== 0 || !fs.existsSync(reportFile)) {
  process.stderr.write(`stryker run failed (exit ${stryker.status ?? stryker.signal}): no scores to check.\n`)
  process.exit(stryker.status || 1)
}

const DETECTED = new Set(['Killed', 'Timeout'])
const UNDETECTED = new Set(['Survived', 'NoCoverage'])
const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'))
let low = 0
process.stdout.write(`\nMutation score per file (at least ${MIN_SCORE}%):\n`)
for (const [file, { mutants }] of Object.entries(report.files)) {
  const detected = mutants.filter((mutant) => DETECTED.has(mutant.status)).length
  const undetected = mutants.filter((mutant) => UNDETECTED.has(mutant.status)).length
  const disabled = mutants.filter((mutant) => mutant.status === 'Ignored').length
  const score = (100 * detected) / Math.max(1, detected + undetected)
  if (score < MIN_SCORE) low += 1
  process.stdout.write(
    `  ${score < MIN_SCORE ? 'LOW' : 'ok '} ${score.toFixed(2).padStart(6)}%  ${file}: ${detected} detected, ` +
      `${undetected} undetected, ${disabled} disabled as equivalent\n`,
  )
}
process.exit(low > 0 ? 1 : 0)
