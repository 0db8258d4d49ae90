// Prints what failed in each suite of this CI run (the "Failed Tests" part of vitest's output,
// colours stripped, each failure cut to 30 lines), so that the end of the run's output, which is
// what is kept of it, says which tests failed and how. Usage: node .ci/failures.mjs LOG...
import fs from 'node:fs'
import path from 'node:path'

const MAX_LINES_PER_FAILURE = 30
const MAX_LINES = 90
const out = []
for (const log of process.argv.slice(2)) {
  if (!fs.existsSync(log)) continue
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
  const lines = fs.readFileSync(log, 'utf8').replace(/\x1b\[[0-9;]*m/g, '').split('\n')
  let failure = null
  const failures = []
  let inFailed = false
  for (const line of lines) {
    if (/^⎯+ Failed (Tests|Suites) \d+ ⎯+$/.test(line)) inFailed = true
    else if (/^ Test Files /.test(line)) inFailed = false
    if (!inFailed) continue
    if (line.startsWith(' FAIL ')) {
      failure = [line.trim()]
      failures.push(failure)
    } else if (failure && !/^⎯+/.test(line) && line.trim() !== '') failure.push(`  ${line}`)
  }
  if (failures.length === 0) continue
  out.push(`== what failed in ${path.basename(log, '.log')}: ${failures.length}`)
  for (const lines of failures) {
    out.push(...lines.slice(0, MAX_LINES_PER_FAILURE))
    if (lines.length > MAX_LINES_PER_FAILURE) out.push(`  … ${lines.length - MAX_LINES_PER_FAILURE} more lines`)
  }
}
if (out.length > MAX_LINES) out.splice(MAX_LINES, out.length - MAX_LINES, `… ${out.length - MAX_LINES} more lines`)
if (out.length > 0) console.log(out.join('\n'))
