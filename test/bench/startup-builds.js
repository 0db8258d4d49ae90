/**
 * The start-up of every command, two builds of pay side by side (a change's before and after):
 * `pay COMMAND --help` for each command of the manifest, and `pay --version`, each build's runs
 * interleaved with the other's (hyperfine when installed, else a node timer), medians. Prints a
 * Markdown table; nothing is written.
 *
 *   node test/bench/startup-builds.js --before ../pay-before --after .   # each: a checkout with dist/ built
 */
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { cleanEnv, compare, log, median, ms, NODE, tempDir } from './lib.js'

const { values } = parseArgs({
  options: { before: { type: 'string' }, after: { type: 'string' }, runs: { type: 'string', default: '10' } },
})
if (!values.before || !values.after) throw new Error('usage: startup-builds.js --before DIR --after DIR')

const bin = (root) => path.join(path.resolve(root), 'bin/run.js')
const commandsOf = (root) =>
  Object.keys(
    JSON.parse(fs.readFileSync(path.join(path.resolve(root), 'oclif.manifest.json'), 'utf8')).commands,
  )
// Only the commands both builds have: a command new in the after build has no before to compare with.
const before = new Set(commandsOf(values.before))
const commands = commandsOf(values.after)
  .filter((id) => before.has(id))
  .sort()
const home = tempDir('startup-home')
const env = cleanEnv({ PAY_CONFIG_DIR: path.join(home, 'config'), XDG_CACHE_HOME: path.join(home, 'cache') })

const rows = []
for (const argv of [['--version'], ...commands.map((id) => [...id.split(':'), '--help'])]) {
  log(`  pay ${argv.join(' ')} …`)
  const times = compare(
    [
      { name: 'before', argv: [NODE, bin(values.before), ...argv] },
      { name: 'after', argv: [NODE, bin(values.after), ...argv] },
    ],
    { env, warmup: 2, runs: Number(values.runs) },
  )
  rows.push({ what: `pay ${argv.join(' ')}`, before: times.before.median, after: times.after.median })
}

const lines = ['| command | before | after | after / before |', '|---|---:|---:|---:|']
for (const row of rows) {
  lines.push(
    `| \`${row.what}\` | ${ms(row.before)} | ${ms(row.after)} | ${(row.after / row.before).toFixed(2)}× |`,
  )
}
const ratios = rows.map((row) => row.after / row.before)
lines.push(
  '',
  `Median of the ratios: ${median(ratios).toFixed(2)}× (lowest ${Math.min(...ratios).toFixed(2)}×, highest ${Math.max(...ratios).toFixed(2)}×).`,
)
process.stdout.write(`${lines.join('\n')}\n`)
