/**
 * Shared helpers of the benchmark: timing (hyperfine, or a node fallback), peak memory, child
 * processes that print one JSON line once ready, statistics and the machine description.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const BENCH = path.join(ROOT, 'test/bench')
export const CACHE = path.join(BENCH, '.cache')
export const PAY = path.join(ROOT, 'bin/run.js')
export const NODE = process.execPath

/** Quick mode (`npm run bench -- --quick`): fewer runs, for checking the harness itself. */
export const QUICK = process.argv.includes('--quick')

/** A key long and `sk_test_`-shaped enough for the Stripe CLI, which checks both. */
export const BENCH_KEY = 'sk_test_bench_0123456789abcdef'

const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'pay-bench-'))
process.on('exit', () => fs.rmSync(tempRoot, { recursive: true, force: true }))

/** A fresh directory under this run's temp dir (removed at exit). */
export function tempDir(name) {
  const dir = path.join(tempRoot, name)
  fs.mkdirSync(dir, { recursive: true })
  return dir
}

/**
 * The key of the sandbox directory `dir`, as pay keeps it (src/shared/sandbox-key.ts): read from
 * its sandbox.key, or made there (0600, in the 0700 directory) when it has none yet. What `sandbox
 * start` with no key serves and `-p sandbox` sends on that directory.
 */
export function sandboxKeyOf(dir) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = path.join(dir, 'sandbox.key')
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, `sk_sandbox_${crypto.randomBytes(16).toString('hex')}\n`, {
      mode: 0o600,
      flag: 'wx',
    })
  }
  return fs.readFileSync(file, 'utf8').trim()
}

export function log(line) {
  process.stderr.write(`${line}\n`)
}

export function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0
}

export const HYPERFINE = !process.env.BENCH_NO_HYPERFINE && has('hyperfine')
export const GNU_TIME = !process.env.BENCH_NO_GNU_TIME && fs.existsSync('/usr/bin/time')

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Quotes one argument for hyperfine's command splitting (POSIX shell words). */
const quote = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)
const commandLine = (argv) => argv.map(quote).join(' ')

/**
 * Runs each command once, output captured, and fails loudly if it exits non-zero or its output
 * fails `check`: a benchmark of an error message would be worthless.
 */
export function verify(command, env) {
  if (command.prepare) run(command.prepare, env)
  const result = spawnSync(command.argv[0], command.argv.slice(1), {
    env,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  })
  if (result.status !== 0) {
    throw new Error(
      `${command.name}: exit ${result.status} from ${commandLine(command.argv)}\n${result.stderr}${result.stdout.slice(0, 2000)}`,
    )
  }
  const problem = command.check?.(result.stdout)
  if (problem) throw new Error(`${command.name}: ${problem}\n${result.stdout.slice(0, 2000)}`)
  return result.stdout
}

function run(argv, env) {
  const result = spawnSync(argv[0], argv.slice(1), { env, stdio: ['ignore', 'ignore', 'inherit'] })
  if (result.status !== 0) throw new Error(`exit ${result.status} from ${commandLine(argv)}`)
}

/**
 * Times commands side by side: `warmup` untimed runs, then `runs` timed runs of each, each timed
 * run preceded by the command's own `prepare` (untimed). Output is discarded. Returns, per
 * command name, the median wall time in ms and the individual times.
 *
 * commands: [{ name, argv, prepare?: argv, check?: (stdout) => problem | undefined }]
 */
export function compare(commands, { env, warmup = 3, runs = 15 }) {
  if (QUICK) {
    warmup = Math.min(warmup, 1)
    runs = Math.min(runs, 3)
  }
  for (const command of commands) verify(command, env)
  const times = HYPERFINE
    ? hyperfineRounds(commands, env, warmup, runs)
    : nodeTimer(commands, env, warmup, runs)
  const results = {}
  for (const command of commands) {
    const t = times[command.name]
    results[command.name] = { median: median(t), min: Math.min(...t), max: Math.max(...t), runs: t.length }
  }
  return results
}

/**
 * hyperfine times all runs of one command, then all of the next: on a machine whose load drifts
 * that would bias the ratios. So the runs are split into rounds (at most 4), the order of the
 * commands reversed every other round, and the times pooled; only the first round warms up.
 */
function hyperfineRounds(commands, env, warmup, runs) {
  const rounds = Math.min(4, runs)
  const pooled = Object.fromEntries(commands.map((c) => [c.name, []]))
  for (let round = 0; round < rounds; round += 1) {
    const roundRuns = Math.floor(runs / rounds) + (round < runs % rounds ? 1 : 0)
    const order = round % 2 ? [...commands].reverse() : commands
    const times = hyperfine(order, env, round === 0 ? warmup : 0, roundRuns)
    for (const [name, values] of Object.entries(times)) pooled[name].push(...values)
  }
  return pooled
}

function hyperfine(commands, env, warmup, runs) {
  const exportFile = path.join(tempDir('hyperfine'), `${Date.now()}-${Math.random()}.json`)
  const args = ['-N', '--style', 'none', '--warmup', String(warmup), '--runs', String(runs)]
  args.push('--export-json', exportFile)
  const anyPrepare = commands.some((c) => c.prepare)
  for (const command of commands) {
    if (anyPrepare) args.push('--prepare', command.prepare ? commandLine(command.prepare) : 'true')
  }
  for (const command of commands) args.push('-n', command.name, commandLine(command.argv))
  execFileSync('hyperfine', args, { env, stdio: ['ignore', 'ignore', 'inherit'] })
  const report = JSON.parse(fs.readFileSync(exportFile, 'utf8'))
  return Object.fromEntries(
    report.results.map((r, i) => [commands[i].name, r.times.map((seconds) => seconds * 1000)]),
  )
}

/** Without hyperfine: the commands in turn (round robin), wall time of spawnSync. */
function nodeTimer(commands, env, warmup, runs) {
  const times = Object.fromEntries(commands.map((c) => [c.name, []]))
  for (let i = 0; i < warmup + runs; i += 1) {
    for (const command of commands) {
      if (command.prepare) run(command.prepare, env)
      const started = process.hrtime.bigint()
      const result = spawnSync(command.argv[0], command.argv.slice(1), { env, stdio: 'ignore' })
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (result.status !== 0) throw new Error(`${command.name}: exit ${result.status}`)
      if (i >= warmup) times[command.name].push(ms)
    }
  }
  return times
}

/** How peak memory is measured, for the report. */
export const RSS_METHOD = GNU_TIME
  ? 'GNU time (`/usr/bin/time -f %M`): max RSS of the node process'
  : '`--require` preload printing `process.resourceUsage().maxRSS` at exit'

export const RSS_RUNS = QUICK ? 1 : 5

/**
 * Median peak resident memory (MB) of a node command over `runs` runs, after one warm-up run.
 * argv[0] must be a node binary: without GNU time a preload is inserted after it.
 */
export function peakRss(argv, env, runs = RSS_RUNS) {
  const dir = tempDir('rss')
  const values = []
  for (let i = 0; i <= runs; i += 1) {
    const out = path.join(dir, `${i}.txt`)
    const command = GNU_TIME
      ? ['/usr/bin/time', '-f', '%M', '-o', out, ...argv]
      : [argv[0], '--require', path.join(BENCH, 'max-rss.cjs'), ...argv.slice(1)]
    const result = spawnSync(command[0], command.slice(1), {
      env: GNU_TIME ? env : { ...env, BENCH_MAX_RSS_FILE: out },
      stdio: 'ignore',
    })
    if (result.status !== 0) throw new Error(`exit ${result.status} from ${commandLine(command)}`)
    const kb = Number(fs.readFileSync(out, 'utf8').trim().split('\n').pop())
    if (i > 0) values.push(kb / 1024)
  }
  return median(values)
}

/**
 * Starts a long-running child that prints one JSON line on stdout once ready; resolves with
 * that JSON and a stop() that ends the child (by its pid) and waits for it. Its stderr is the
 * bench's unless `stderr: 'ignore'` (/dev/null).
 */
export function startJsonChild(argv, env, { stderr = 'inherit' } = {}) {
  const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', stderr] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout })
    lines.once('line', (line) => {
      try {
        resolve({ info: JSON.parse(line), stop })
      } catch (error) {
        stop()
        reject(new Error(`${commandLine(argv)} printed ${line}: ${error.message}`))
      }
    })
    child.once('exit', (code) => reject(new Error(`${commandLine(argv)} exited ${code} before it was ready`)))
  })
}

export function ms(value) {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`
}

export function ratio(value) {
  return `${value.toFixed(2)}×`
}

function cpuModel() {
  try {
    const line = fs
      .readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'))
    if (line) return line.split(':')[1].trim()
  } catch {}
  return os.cpus()[0]?.model ?? 'unknown'
}

function gitRevision() {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bin', 'scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim()
    return dirty ? `${rev} (with uncommitted changes in src/bin/scripts)` : rev
  } catch {
    return 'unknown'
  }
}

export function machine() {
  const load = os.loadavg().map((l) => l.toFixed(2))
  return {
    cpu: cpuModel(),
    cores: os.availableParallelism?.() ?? os.cpus().length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    load: `${load[0]} (1 min) at start`,
    timer: HYPERFINE
      ? execFileSync('hyperfine', ['--version'], { encoding: 'utf8' }).trim()
      : `node harness (hyperfine ${process.env.BENCH_NO_HYPERFINE ? 'turned off' : 'not installed'})`,
    revision: gitRevision(),
  }
}

/**
 * A copy of the built pay (bin/run.js and loader.js, dist/, package.json, manifest; node_modules linked) in
 * this run's temp dir, so that a `npm run build` in the work tree during the benchmark neither
 * breaks it nor mixes two builds in one table. Returns the copy's bin/run.js.
 */
export function snapshotPay() {
  if (!fs.existsSync(path.join(ROOT, 'dist/pay.cjs'))) {
    throw new Error('dist/pay.cjs is missing: run `npm run build` first.')
  }
  const dir = tempDir('pay')
  fs.mkdirSync(path.join(dir, 'bin'))
  // bin/run.js and the start-up loader beside it (as package.json's "files" ships them).
  for (const file of ['run.js', 'loader.js'])
    fs.copyFileSync(path.join(ROOT, 'bin', file), path.join(dir, 'bin', file))
  fs.cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true })
  for (const file of ['package.json', 'oclif.manifest.json']) {
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file))
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
  return path.join(dir, 'bin/run.js')
}

/**
 * The environment every measured command gets: the caller's, minus anything that would change
 * what pay or node do (profiles, timeouts, node options), plus `extra`.
 */
export function cleanEnv(extra) {
  const env = {}
  for (const [name, value] of Object.entries(process.env)) if (!dropped(name)) env[name] = value
  return { ...env, ...extra }
}

const dropped = (name) => /^(PAY|NODE|STRIPE)_/.test(name)

/** Names (never values) of the caller's variables that cleanEnv leaves out, for the report. */
export const DROPPED_ENV = Object.keys(process.env).filter(dropped).sort()

/**
 * `npm install --ignore-scripts` of `spec` into test/bench/.cache/<name> unless `file` (relative
 * to that prefix) is already there. Install scripts stay off: a package that would download its
 * payload from elsewhere counts as unavailable. Returns the file's path, or throws with the reason.
 */
export function npmInstall(name, spec, file) {
  const prefix = path.join(CACHE, name)
  const target = path.join(prefix, file)
  if (fs.existsSync(target)) return target
  fs.mkdirSync(prefix, { recursive: true })
  log(`  installing ${spec} into ${path.relative(ROOT, prefix)}/ …`)
  const result = spawnSync(
    'npm',
    ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix, spec],
    { encoding: 'utf8', timeout: 180_000 },
  )
  if (result.status !== 0) {
    const reason = `${result.stderr}`.split('\n').find((l) => /ERR!/.test(l)) ?? `exit ${result.status}`
    throw new Error(`npm install ${spec} failed: ${reason.trim()}`)
  }
  if (!fs.existsSync(target)) throw new Error(`npm install ${spec} did not provide ${file}`)
  return target
}

export function packageVersion(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')).version
  } catch {
    return undefined
  }
}
