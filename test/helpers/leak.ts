import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { type RunningSandbox, startSandbox } from '../../src/sandbox/http/server.js'
import { secretPattern } from '../../src/shared/key-forms.js'
import { type CliResult, runCli, tempDir } from './cli.js'
import { commandOfArgs } from './endpoints.js'
import type { FakeServer } from './fake-server.js'
import { type Handler, startFaultServer } from './fault-server.js'
import type { Json } from './links.js'

/**
 * A recognisable API key, and a scanner that finds it, or any 8 consecutive characters of
 * its secret part, in bytes pay wrote: stdout, stderr and every file it may have touched; as they
 * are, or percent-encoded.
 * The needles are searched as UTF-8/Latin-1 bytes and as UTF-16LE (how V8 stores two-byte
 * strings, e.g. in a code cache or a heap snapshot).
 */
export const CANARY = 'sk_live_CANARY_7f3e9d2c1b0a'
/** The part of the key that is secret: everything after the `sk_live_` prefix. */
export const CANARY_SECRET = CANARY.slice('sk_live_'.length)
export const PARTIAL_LENGTH = 8

/** Every 8-character window of the secret part, plus the whole key. */
export const NEEDLES: string[] = [
  CANARY,
  ...Array.from({ length: CANARY_SECRET.length - PARTIAL_LENGTH + 1 }, (_, i) =>
    CANARY_SECRET.slice(i, i + PARTIAL_LENGTH),
  ),
]

const NEEDLE_BYTES = NEEDLES.flatMap((needle) => [
  { needle, encoding: 'utf8', bytes: Buffer.from(needle, 'utf8') },
  { needle, encoding: 'utf16le', bytes: Buffer.from(needle, 'utf16le') },
])

/**
 * The needles found in `bytes`, as "needle (encoding) at offset": as they are, and percent-encoded
 * in part or whole, once or twice over (how a path, a query or a logged URL would hold them).
 */
export function findCanary(bytes: Buffer | string): string[] {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes
  const hits: string[] = []
  for (const { needle, encoding, bytes: pattern } of NEEDLE_BYTES) {
    const at = buffer.indexOf(pattern)
    if (at !== -1) hits.push(`${JSON.stringify(needle)} (${encoding}) at ${at}`)
  }
  if (buffer.includes('%')) {
    const text = buffer.toString('latin1')
    for (const needle of NEEDLES) {
      const found = secretPattern(needle).exec(text)
      if (found && found[0] !== needle)
        hits.push(`${JSON.stringify(needle)} (percent-encoded) at ${found.index}`)
    }
  }
  return hits
}

/** Every regular file under `dir`, recursively (symbolic links not followed). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  const files: string[] = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) files.push(...filesUnder(full))
    else if (entry.isFile()) files.push(full)
  }
  return files
}

/** Collects what was scanned and every hit, for one assertion at the end and the figures. */
export class LeakScan {
  readonly hits: string[] = []
  bytes = 0
  streams = 0
  files = 0

  /** One output stream of one run. */
  output(label: string, text: string): void {
    this.streams += 1
    this.bytes += Buffer.byteLength(text)
    for (const hit of findCanary(text)) this.hits.push(`${label}: ${hit}`)
  }

  /** Every file under `dir` but those `skip` accepts (the config file that holds the key by design). */
  tree(dir: string, skip: (file: string) => boolean = () => false): string[] {
    const scanned: string[] = []
    for (const file of filesUnder(dir)) {
      if (skip(file)) continue
      const bytes = fs.readFileSync(file)
      this.files += 1
      this.bytes += bytes.length
      scanned.push(file)
      for (const hit of findCanary(bytes)) this.hits.push(`${file}: ${hit}`)
    }
    return scanned
  }
}

export interface LeakCase {
  /** How the case is reported: command and path. */
  label: string
  args: string[]
  /** The exit code expected; several for a case made from the declarations, whose outcome a test does not know. */
  code: number | readonly number[]
  env?: Record<string, string | undefined>
  input?: string
  /** More checks on the result. */
  check?: (result: CliResult) => void
}

/** --debug output is the piped output (TSV, messages) plus the HTTP trace. */
export const MODES: [string, string[]][] = [
  ['--json', ['--json']],
  ['--debug', ['--debug']],
]

/** One case per output mode. */
export const inModes = (c: LeakCase): LeakCase[] =>
  MODES.map(([mode, flags]) => ({ ...c, label: `${c.label} ${mode}`, args: [...c.args, ...flags] }))

/** The key as a server might echo it, wherever the request's Authorization header went. */
export const auth = (request: { headers: http.IncomingHttpHeaders }) => String(request.headers.authorization)

/** Filler that puts the key where pay cuts long server text (at 200 characters): mid-secret. */
export const CUT_FILLER = `${'x'.repeat(179)} `

export const leakEnv = (baseUrl: string) => ({ PAY_API_KEY: CANARY, PAY_BASE_URL: baseUrl })

/**
 * The scanned environment of one leak test file: its own HOME, XDG dirs, TMPDIR, config dir,
 * sandbox store and report dir under one root; a sandbox that knows the key and one that does
 * not (a real 401); fault servers; and `pay` to run a case in it, which scans its output and
 * checks its exit code. `finish` scans every file under the root but the config file (where
 * `pay login` keeps the key by design) and prints the figures.
 */
export function leakEnvironment() {
  const root = tempDir('pay-leak-')
  const dirs = {
    home: path.join(root, 'home'),
    cache: path.join(root, 'cache'),
    xdgConfig: path.join(root, 'xdg-config'),
    data: path.join(root, 'data'),
    tmp: path.join(root, 'tmp'),
    config: path.join(root, 'config'),
    store: path.join(root, 'store'),
    reports: path.join(root, 'reports'),
  }
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true })
  const configFiles = new Set([path.join(dirs.config, 'config.json')])
  const scan = new LeakScan()
  const commands = new Set<string>()
  let runs = 0
  /** Cases whose exit code was not the one expected, or whose output held the key. */
  const problems: unknown[] = []
  const servers: FakeServer[] = []
  const state = {
    sandbox: undefined as unknown as RunningSandbox,
    stranger: undefined as unknown as RunningSandbox,
    closedPort: 0,
    packageId: '',
  }

  /** Runs pay in the scanned environment; scans stdout and stderr; checks the exit code. */
  async function pay(c: LeakCase): Promise<CliResult> {
    const result = await runCli(c.args, {
      input: c.input,
      timeoutMs: 20_000,
      env: {
        HOME: dirs.home,
        XDG_CACHE_HOME: dirs.cache,
        XDG_CONFIG_HOME: dirs.xdgConfig,
        XDG_DATA_HOME: dirs.data,
        TMPDIR: dirs.tmp,
        PAY_CONFIG_DIR: dirs.config,
        PAY_SANDBOX_DIR: dirs.store,
        // The journal in its default place, under XDG_DATA_HOME: scanned with the rest.
        PAY_JOURNAL_FILE: undefined,
        ...c.env,
      },
    })
    runs += 1
    // The command the case ran, as the manifest names it (global flags first are skipped over).
    const id = commandOfArgs(c.args)
    commands.add(id ?? c.args.join(' '))
    scan.output(`${c.label} [stdout]`, result.stdout)
    scan.output(`${c.label} [stderr]`, result.stderr)
    const hits = findCanary(result.stdout + result.stderr)
    const expected = typeof c.code === 'number' ? [c.code] : c.code
    if (result.code === null || !expected.includes(result.code) || hits.length > 0) {
      problems.push({
        label: c.label,
        code: result.code,
        expected: c.code,
        hits,
        stderr: result.stderr.slice(0, 400),
      })
    }
    c.check?.(result)
    return result
  }

  /** A fault server answering every request with `handler`. */
  async function faulty(handler: Handler): Promise<string> {
    const server = await startFaultServer(handler)
    servers.push(server)
    return server.baseUrl
  }

  /** A request to the sandbox with the key, answered 200: its data. */
  async function call(method: string, route: string, body?: unknown) {
    const response = await fetch(`${state.sandbox.baseUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${CANARY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    expect(response.status).toBe(200)
    return ((await response.json()) as { data: Json }).data
  }

  beforeAll(async () => {
    state.sandbox = await startSandbox({ dir: dirs.store, keys: [CANARY], port: 0 })
    state.packageId = state.sandbox.packages[CANARY][0]._id
    // A sandbox that does not know the key: a real 401.
    state.stranger = await startSandbox({
      dir: tempDir('pay-leak-stranger-'),
      keys: ['sk_test_other'],
      port: 0,
    })
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    state.closedPort = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
  })

  afterAll(async () => {
    await Promise.all([
      state.sandbox?.close(),
      state.stranger?.close(),
      ...servers.map((server) => server.close()),
    ])
  })

  /** Scans every file under the root (but the config file); the files it scanned. */
  function scanFiles(skip: (file: string) => boolean = () => false): string[] {
    return scan.tree(root, (file) => configFiles.has(file) || skip(file))
  }

  function summary(): string {
    return (
      `${runs} runs of ${commands.size} commands, ${scan.streams} output streams and ` +
      `${scan.files} files, ${(scan.bytes / 1024 / 1024).toFixed(1)} MiB scanned for ${JSON.stringify(CANARY)} ` +
      `and every 8-character piece of ${JSON.stringify(CANARY_SECRET)}: ${scan.hits.length} hits`
    )
  }

  return {
    root,
    dirs,
    /** Files allowed to hold the key (config files, which hold it by design). */
    configFiles,
    state,
    scan,
    problems,
    pay,
    faulty,
    call,
    seedLink: () =>
      call('POST', '/payment-links', {
        email: 'seed@example.com',
        currency: 'EUR',
        amount: '10.00',
        title: 'S',
      }),
    seedSub: () => call('POST', '/subscriptions', { package_id: state.packageId, email: 'sub@example.com' }),
    scanFiles,
    summary,
    /** The commands the cases ran, by manifest id (`sandbox:clock:advance`). */
    commandsRun: () => new Set(commands),
  }
}
