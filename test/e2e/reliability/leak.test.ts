import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/server.js'
import { type CliResult, expectNoKeyInOutput, runCli, tempDir } from '../../helpers/cli.js'
import { envelope, type FakeServer, sendJson } from '../../helpers/fake-server.js'
import { cutOff, type Handler, hang, startFaultServer } from '../../helpers/fault-server.js'
import { CANARY, CANARY_SECRET, findCanary, LeakScan } from '../../helpers/leak.js'
import { type Json, linkCreateArgs } from '../../helpers/links.js'
import { mapConcurrent } from '../../helpers/subs.js'

/**
 * The key never leaks. Every command runs with a recognisable key against a sandbox that
 * knows it (in this process) and against servers that answer every kind of failure, many of
 * them echoing the key back in bodies, headers and status lines. Every byte pay wrote is then
 * scanned for the key and for any 8 consecutive characters of its secret part: stdout, stderr,
 * and every file under the run's HOME, XDG dirs, TMPDIR, config dir, sandbox store and
 * --report files, except the config file itself (where `pay login` keeps the key by design).
 */

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

/** Config files that hold the key on purpose; everything else under root is scanned. */
const configFiles = new Set([path.join(dirs.config, 'config.json')])

const scan = new LeakScan()
const commands = new Set<string>()
let runs = 0
/** Cases whose exit code was not the one expected, or whose output held the key. */
const problems: unknown[] = []

interface Case {
  /** How the case is reported: command and path. */
  label: string
  args: string[]
  code: number
  env?: Record<string, string | undefined>
  input?: string
  /** More checks on the result. */
  check?: (result: CliResult) => void
}

/** Runs pay in the scanned environment; scans stdout and stderr; checks the exit code. */
async function pay(c: Case): Promise<CliResult> {
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
      ...c.env,
    },
  })
  runs += 1
  commands.add(
    c.args
      .filter((arg) => /^[a-z]+$/.test(arg))
      .slice(0, 2)
      .join(' '),
  )
  scan.output(`${c.label} [stdout]`, result.stdout)
  scan.output(`${c.label} [stderr]`, result.stderr)
  const hits = findCanary(result.stdout + result.stderr)
  if (result.code !== c.code || hits.length > 0) {
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

/** --debug output is the piped output (TSV, messages) plus the HTTP trace. */
const MODES: [string, string[]][] = [
  ['--json', ['--json']],
  ['--debug', ['--debug']],
]

/** One case per output mode. */
const inModes = (c: Case): Case[] =>
  MODES.map(([mode, flags]) => ({ ...c, label: `${c.label} ${mode}`, args: [...c.args, ...flags] }))

let sandbox: RunningSandbox
let stranger: RunningSandbox
const servers: FakeServer[] = []
let closedPort: number

/** A fault server answering every request with `handler`. */
async function faulty(handler: Handler): Promise<string> {
  const server = await startFaultServer(handler)
  servers.push(server)
  return server.baseUrl
}

async function call(method: string, route: string, body?: unknown) {
  const response = await fetch(`${sandbox.baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${CANARY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { data: Json }).data
}

const seedLink = () =>
  call('POST', '/payment-links', { email: 'seed@example.com', currency: 'EUR', amount: '10.00', title: 'S' })
const seedSub = () => call('POST', '/subscriptions', { package_id: packageId, email: 'sub@example.com' })
let packageId: string

beforeAll(async () => {
  sandbox = await startSandbox({ dir: dirs.store, keys: [CANARY], port: 0 })
  packageId = sandbox.packages[CANARY][0]._id
  // A sandbox that does not know the key: a real 401.
  stranger = await startSandbox({ dir: tempDir('pay-leak-stranger-'), keys: ['sk_test_other'], port: 0 })
  const closed = http.createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  closedPort = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
})

afterAll(async () => {
  await Promise.all([sandbox?.close(), stranger?.close(), ...servers.map((server) => server.close())])
})

const env = (baseUrl: string) => ({ PAY_API_KEY: CANARY, PAY_BASE_URL: baseUrl })

/** The key as a server might echo it, wherever the request's Authorization header went. */
const auth = (request: { headers: http.IncomingHttpHeaders }) => String(request.headers.authorization)

/** Filler that puts the key where pay cuts long server text (at 200 characters): mid-secret. */
const CUT_FILLER = `${'x'.repeat(179)} `

describe('the key never leaks', () => {
  it('success paths: every command, with --json and with --debug (the piped output plus the trace)', async () => {
    // Logins first: the profiles they store are used by every command after them.
    const login = (profile: string, flags: string[]): Case => ({
      label: `login --with-key ${flags.join(' ') || 'piped'}`,
      args: ['login', '--profile', profile, '--base-url', sandbox.baseUrl, '--with-key', ...flags],
      input: `${CANARY}\n`,
      code: 0,
    })
    for (const c of [login('live', ['--no-verify']), login('live2', ['--json']), login('live3', ['--debug'])])
      await pay(c)
    const stored = JSON.parse(fs.readFileSync(path.join(dirs.config, 'config.json'), 'utf8'))
    expect(stored.profiles.live.api_key).toBe(CANARY) // the one file allowed to hold it

    const links = await Promise.all(Array.from({ length: 10 }, seedLink))
    const subs = await Promise.all(Array.from({ length: 10 }, seedSub))
    const id = (list: { _id: string }[]) => list.shift()!._id
    const perMode = (make: (mode: string) => Case): Case[] =>
      MODES.map(([mode, flags]) => {
        const c = make(mode.replace(/^-+/, ''))
        return { ...c, label: `${c.label} ${mode}`, args: [...c.args, ...flags] }
      })

    const cases: Case[] = [
      ...inModes({
        label: 'token create',
        args: ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D', '--phone', '1'],
        code: 0,
      }),
      ...inModes({
        label: 'links create',
        args: linkCreateArgs(),
        code: 0,
      }),
      ...perMode(() => ({ label: 'links get', args: ['links', 'get', id(links)], code: 0 })),
      ...inModes({ label: 'links list', args: ['links', 'list', '--all'], code: 0 }),
      ...perMode(() => ({
        label: 'links update',
        args: ['links', 'update', id(links), '--title', 'U'],
        code: 0,
      })),
      ...perMode(() => ({ label: 'links delete', args: ['links', 'delete', id(links), '--yes'], code: 0 })),
      ...perMode(() => ({ label: 'sandbox pay', args: ['sandbox', 'pay', id(links)], code: 0 })),
      ...inModes({
        label: 'subs create',
        args: ['subs', 'create', '--package-id', packageId, '--email', 'a@b.co', '--phone', '1'],
        code: 0,
      }),
      ...perMode(() => ({ label: 'subs get', args: ['subs', 'get', id(subs)], code: 0 })),
      ...inModes({ label: 'subs list', args: ['subs', 'list'], code: 0 }),
      ...perMode(() => ({
        label: 'subs update',
        args: ['subs', 'update', id(subs), '--phone', '2'],
        code: 0,
      })),
      ...perMode((mode) => ({
        label: 'subs cancel --report',
        args: [
          'subs',
          'cancel',
          id(subs),
          id(subs),
          '--yes',
          '--report',
          path.join(dirs.reports, `${mode}.csv`),
        ],
        code: 0,
      })),
      ...perMode(() => ({ label: 'subs delete', args: ['subs', 'delete', id(subs), '--yes'], code: 0 })),
      ...inModes({ label: 'profiles list', args: ['profiles', 'list'], code: 0 }),
      ...inModes({ label: 'profiles show', args: ['profiles', 'show', 'live'], code: 0 }),
      // PAY_API_KEY over a profile: pay says so, with the key redacted.
      ...inModes({
        label: 'links list, PAY_API_KEY over -p live',
        args: ['links', 'list', '-p', 'live'],
        env: { PAY_API_KEY: CANARY },
        code: 0,
        check: (result) => expect(result.stderr).toContain('(sk_l…1b0a)'),
      }),
      ...inModes({
        label: 'links list, PAY_API_KEY + PAY_BASE_URL',
        args: ['links', 'list'],
        env: env(sandbox.baseUrl),
        code: 0,
      }),
      // The built-in sandbox profile with the key: a sandbox in the pay process, on the scanned store.
      ...inModes({
        label: 'links create -p sandbox (in-process)',
        args: ['-p', 'sandbox', ...linkCreateArgs('1')],
        env: { PAY_API_KEY: CANARY },
        code: 0,
      }),
    ]
    await mapConcurrent(cases, 4, pay)

    // --debug shows the exchange: method, URL, headers with the key redacted, status and timing.
    const debug = await pay({
      label: 'links get --debug (trace)',
      args: ['links', 'get', id(links), '--debug'],
      code: 0,
    })
    const lines = debug.stderr.split('\n')
    expect(lines).toContainEqual(
      expect.stringMatching(/^\[debug\] > GET http:\/\/127\.0\.0\.1:\d+\/payment-links\/[0-9a-f]{24}$/),
    )
    expect(lines).toContain('[debug] > authorization: Bearer [REDACTED]')
    expect(lines).toContainEqual(expect.stringMatching(/^\[debug\] < 200 OK \(\d+ ms\)$/))

    // Last: the commands that change or empty what the others used.
    for (const c of [
      ...inModes({ label: 'profiles use', args: ['profiles', 'use', 'live'], code: 0 }),
      { label: 'profiles remove', args: ['profiles', 'remove', 'live'], code: 0 },
      { label: 'profiles remove --json', args: ['profiles', 'remove', 'live2', '--json'], code: 0 },
      { label: 'profiles remove --debug', args: ['profiles', 'remove', 'live3', '--debug'], code: 0 },
      ...inModes({ label: 'sandbox reset', args: ['sandbox', 'reset'], code: 0 }),
    ])
      await pay(c)
    expect(problems).toEqual([])
  })

  it('error paths: 401, 404, 422, 5xx, HTML, timeouts, refused connections, bad flags, corrupt config, crashes', async () => {
    const key = (request: { headers: http.IncomingHttpHeaders }) => auth(request).replace(/^Bearer /, '')
    const servers = {
      // The key echoed in the message, a field name, a field message, a header and the status line.
      unauthorized: await faulty((request, response) => {
        response.writeHead(401, `Unauthorized ${auth(request)}`, {
          'content-type': 'application/json',
          'x-request-id': auth(request),
        })
        response.end(
          JSON.stringify({
            message: `Unknown key ${auth(request)}`,
            errors: { [key(request)]: [auth(request)] },
          }),
        )
      }),
      invalid: await faulty((request, response) =>
        sendJson(response, 422, {
          message: `Invalid data for ${auth(request)}`,
          errors: { email: [`${key(request)} is not an e-mail`], [key(request)]: ['unknown field'] },
        }),
      ),
      unavailable: await faulty((request, response) =>
        sendJson(
          response,
          503,
          { message: `Down for ${auth(request)}` },
          {
            'retry-after': '0',
            'x-request-id': key(request),
          },
        ),
      ),
      // Long server text is cut at 200 characters: these put the cut in the middle of the key.
      text: await faulty((request, response) => {
        response.writeHead(500, { 'content-type': 'text/plain' })
        response.end(`${CUT_FILLER}${key(request)} trailing words`)
      }),
      htmlTitle: await faulty((request, response) => {
        response.writeHead(502, { 'content-type': 'text/html' })
        response.end(
          `<html><head><title>${CUT_FILLER}${key(request)}</title></head><body>${key(request)}</body></html>`,
        )
      }),
      htmlBody: await faulty((request, response) => {
        response.writeHead(500, { 'content-type': 'text/html' })
        response.end(`<html><body><p>${CUT_FILLER}${key(request)}</p><p>more</p></body></html>`)
      }),
      // A JSON string body with the key written in \u escapes: only the parsed text shows it.
      jsonString: await faulty((request, response) => {
        response.writeHead(500, { 'content-type': 'application/json' })
        response.end(`"${CUT_FILLER}\\u0073${key(request).slice(1)} trailing words"`)
      }),
      redirect: await faulty((request, response) => {
        response.writeHead(302, { location: `https://elsewhere.example/login?key=${key(request)}` })
        response.end()
      }),
      hang: await faulty(hang()),
      cutOff: await faulty(cutOff('{"success":true,"data":{"_id":"lnk_1","title":"')),
      // Answers that made rendering throw an unexpected exception (see the report).
      deep: await faulty((_, response) => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(`{"data":{"_id":"lnk_1","title":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`)
      }),
      primitive: await faulty((_, response) =>
        sendJson(
          response,
          200,
          envelope([{ _id: { toString: null, valueOf: null }, status: { toString: 1 } }]),
        ),
      ),
      marked: await faulty((_, response) =>
        sendJson(response, 200, envelope({ _id: 'lnk_1', title: 'T', meta: { note: '__inject_crash__' } })),
      ),
    }
    // A pay that throws an unexpected TypeError while it renders a marked answer: the generic
    // error path, with --debug its stack trace.
    const crash = path.join(root, 'inject-crash.cjs')
    fs.writeFileSync(
      crash,
      [
        'const stringify = JSON.stringify',
        'JSON.stringify = function (...args) {',
        '  const text = stringify.apply(this, args)',
        "  if (typeof text === 'string' && text.includes('__inject_crash__')) throw new TypeError('injected failure while rendering')",
        '  return text',
        '}',
      ].join('\n'),
    )
    const refused = `http://127.0.0.1:${closedPort}`
    const GET = ['links', 'get', 'lnk_1']
    const CREATE = linkCreateArgs('1')
    const unknown = 'ffff00000000000000000000'
    const noStack = (result: CliResult) => expect(result.stderr).not.toMatch(/^\s+at /m)

    const cases: Case[] = [
      // 401
      ...inModes({ label: '401 echoing the key', args: GET, env: env(servers.unauthorized), code: 4 }),
      {
        label: 'login --with-key 401 echoing the key',
        args: ['login', '--profile', 'echo', '--base-url', servers.unauthorized, '--with-key', '--debug'],
        input: CANARY,
        code: 4,
      },
      ...inModes({
        label: '401 from a sandbox without the key',
        args: ['links', 'list'],
        env: env(stranger.baseUrl),
        code: 4,
      }),
      {
        label: 'login --with-key 401 from a sandbox',
        args: ['login', '--profile', 'bad', '--base-url', stranger.baseUrl, '--with-key'],
        input: CANARY,
        code: 4,
      },
      // 404
      ...inModes({
        label: 'links get 404',
        args: ['links', 'get', unknown],
        env: env(sandbox.baseUrl),
        code: 5,
      }),
      {
        label: 'subs get 404',
        args: ['subs', 'get', unknown, '--debug'],
        env: env(sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'links update 404',
        args: ['links', 'update', unknown, '--title', 'X'],
        env: env(sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'links delete 404',
        args: ['links', 'delete', unknown, '--yes', '--json'],
        env: env(sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'subs delete 404',
        args: ['subs', 'delete', unknown, '--yes', '--debug'],
        env: env(sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'subs update 404',
        args: ['subs', 'update', unknown, '--phone', '1'],
        env: env(sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'subs cancel 404 --report',
        args: ['subs', 'cancel', unknown, '--yes', '--report', path.join(dirs.reports, '404.csv')],
        env: env(sandbox.baseUrl),
        code: 5,
      },
      { label: 'sandbox pay 404', args: ['sandbox', 'pay', unknown, '--debug'], code: 5 },
      // 422
      ...inModes({
        label: 'subs create 422 (unknown package)',
        args: ['subs', 'create', '--package-id', 'nope', '--email', 'a@b.co'],
        env: env(sandbox.baseUrl),
        code: 3,
      }),
      ...inModes({ label: '422 echoing the key', args: CREATE, env: env(servers.invalid), code: 3 }),
      // 5xx, text, HTML
      ...inModes({
        label: '503 echoing the key, retried',
        args: ['links', 'list'],
        env: env(servers.unavailable),
        code: 6,
      }),
      {
        label: 'token create 503',
        args: ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D', '--debug'],
        env: env(servers.unavailable),
        code: 6,
      },
      ...inModes({ label: '500 text cut mid-key', args: GET, env: env(servers.text), code: 6 }),
      ...inModes({ label: '502 HTML title cut mid-key', args: GET, env: env(servers.htmlTitle), code: 6 }),
      {
        label: '500 HTML body cut mid-key',
        args: ['subs', 'get', 'x', '--debug'],
        env: env(servers.htmlBody),
        code: 6,
      },
      ...inModes({
        label: '500 JSON string, escaped key cut',
        args: GET,
        env: env(servers.jsonString),
        code: 6,
      }),
      ...inModes({ label: '302 to a URL holding the key', args: GET, env: env(servers.redirect), code: 6 }),
      // timeouts, refused and cut-off connections
      { label: 'timeout', args: [...GET, '--timeout', '1'], env: env(servers.hang), code: 6 },
      {
        label: 'timeout --debug',
        args: [...CREATE, '--timeout', '1', '--debug'],
        env: env(servers.hang),
        code: 6,
      },
      {
        label: 'subs cancel timeout --report',
        args: [
          'subs',
          'cancel',
          'sub_1',
          '--yes',
          '--timeout',
          '1',
          '--json',
          '--report',
          path.join(dirs.reports, 'hang.csv'),
        ],
        env: env(servers.hang),
        code: 6,
      },
      ...inModes({ label: 'connection refused', args: ['links', 'list'], env: env(refused), code: 6 }),
      {
        label: 'token create refused',
        args: ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D'],
        env: env(refused),
        code: 6,
      },
      {
        label: 'login --with-key refused',
        args: ['login', '--base-url', refused, '--with-key', '--debug'],
        input: CANARY,
        code: 6,
      },
      ...inModes({ label: 'closed mid-body (GET)', args: GET, env: env(servers.cutOff), code: 6 }),
      { label: 'closed mid-body (POST)', args: [...CREATE, '--debug'], env: env(servers.cutOff), code: 6 },
      // bad flags and usage
      ...inModes({
        label: 'links create --amount abc',
        args: [
          'links',
          'create',
          '--email',
          'a@b.co',
          '--currency',
          'EUR',
          '--amount',
          'abc',
          '--title',
          'T',
        ],
        env: env(sandbox.baseUrl),
        code: 3,
      }),
      {
        label: 'links get without id',
        args: ['links', 'get', '--debug'],
        env: env(sandbox.baseUrl),
        code: 2,
      },
      {
        label: 'links list --timeout 0',
        args: ['links', 'list', '--timeout', '0', '--json'],
        env: env(sandbox.baseUrl),
        code: 2,
      },
      {
        label: 'links list --bogus',
        args: ['links', 'list', '--bogus', '--debug'],
        env: env(sandbox.baseUrl),
        code: 2,
      },
      {
        label: 'subs cancel without --yes',
        args: ['subs', 'cancel', 'sub_1', '--debug'],
        env: env(sandbox.baseUrl),
        code: 2,
      },
      {
        label: 'subs delete without --yes',
        args: ['subs', 'delete', 'sub_1', '--json'],
        env: env(sandbox.baseUrl),
        code: 2,
      },
      {
        label: 'links list over plain http',
        args: ['links', 'list', '--base-url', 'http://pay.example', '--debug'],
        env: { PAY_API_KEY: CANARY },
        code: 2,
      },
      {
        label: 'login --with-key, empty stdin',
        args: ['login', '--base-url', sandbox.baseUrl, '--with-key', '--debug'],
        input: '',
        code: 2,
      },
      {
        label: 'login without --with-key off a terminal',
        args: ['login', '--base-url', sandbox.baseUrl],
        input: CANARY,
        code: 2,
      },
      // unexpected answers and an unexpected exception
      ...inModes({ label: '100 000 nested arrays', args: GET, env: env(servers.deep), code: 6 }),
      ...inModes({
        label: 'objects without toString',
        args: ['links', 'list', '-q', '--status', 'x'],
        env: env(servers.primitive),
        code: 0,
      }),
      ...inModes({
        label: 'an unexpected TypeError while rendering',
        args: [...GET, '--json'],
        env: { ...env(servers.marked), NODE_OPTIONS: `--require ${crash}` },
        code: 1,
      }).map((c) => ({ ...c, args: c.args.filter((arg, i, all) => all.indexOf(arg) === i) })),
    ]
    await mapConcurrent(cases, 6, async (c) => {
      const result = await pay(c)
      if (!c.args.includes('--debug')) noStack(result)
    })

    // Corrupt config files holding the key, each read by the commands that read the config.
    const corrupt = [
      `{"current":"live","profiles":{"live":{"api_key":"${CANARY.slice(0, 20)}`,
      `{"current":"live","profiles":{"live":{"api_key":"${CANARY}" "base_url":"https://pay.example"}}}`,
      `{"current":"live","profiles":{"live":{"api_key":${CANARY},"base_url":"https://pay.example"}}}`,
      `{"current":"live","profiles":{"live":{"api_key":"${CANARY}","base_url":5}}}`,
      `["${CANARY}"]`,
      `{"current":["${CANARY}"],"profiles":{}}`,
      `{"current":"live","profiles":{"live":{"api_key":"${CANARY}","base_url":"https://pay.example"}}}}`,
    ]
    const readers = [
      ['links', 'list'],
      ['profiles', 'list'],
      ['login', '--with-key', '--no-verify', '--base-url', 'https://pay.example'],
    ]
    const corruptCases = corrupt.map((content, i): Case => {
      const dir = path.join(root, `corrupt-${i}`)
      fs.mkdirSync(dir, { mode: 0o700 })
      fs.writeFileSync(path.join(dir, 'config.json'), content, { mode: 0o600 })
      configFiles.add(path.join(dir, 'config.json'))
      const args = readers[i % readers.length]
      return {
        label: `${args.slice(0, 2).join(' ')} with corrupt config ${i}`,
        args: [...args, ...(i % 2 === 0 ? ['--debug'] : ['--json'])],
        env: { PAY_CONFIG_DIR: dir },
        input: CANARY,
        code: 1,
      }
    })
    await mapConcurrent(corruptCases, 6, pay)
    expect(problems).toEqual([])
  })

  it('leaves no trace in any file: store, reports, caches, config dir, HOME, TMPDIR', () => {
    const scanned = scan.tree(root, (file) => configFiles.has(file) || file.endsWith('inject-crash.cjs'))
    const under = (dir: string) => scanned.filter((file) => file.startsWith(`${dir}${path.sep}`))
    // The files the runs are known to write were there to be scanned.
    expect(under(dirs.store).map((file) => path.basename(file))).toContain('store.json')
    expect(under(dirs.reports).length).toBe(4)
    if (!(process.versions.node.split('.').map(Number)[0] >= 22)) {
      expect(under(path.join(dirs.cache, 'pay')).some((file) => /v8-.*\.bin$/.test(file))).toBe(true)
    }
    expect(scan.hits).toEqual([])
    console.log(
      `leak scan: ${runs} runs of ${commands.size} commands, ${scan.streams} output streams and ` +
        `${scan.files} files, ${(scan.bytes / 1024 / 1024).toFixed(1)} MiB scanned for ${JSON.stringify(CANARY)} ` +
        `and every 8-character piece of ${JSON.stringify(CANARY_SECRET)}: ${scan.hits.length} hits`,
    )
  })
})

describe('every end-to-end run of the suite', () => {
  const key = 'sk_live_every_run_4d1c'
  const result = (stdout: string, stderr: string): CliResult => ({ code: 0, signal: null, stdout, stderr })

  it('fails the test that ran it when its key is in stdout or stderr', () => {
    const env = { env: { PAY_API_KEY: key } }
    expect(() => expectNoKeyInOutput(['links', 'list'], env, result(`x${key}x`, ''))).toThrow(
      'the API key appeared on stdout of: pay links list',
    )
    expect(() => expectNoKeyInOutput(['links', 'list'], env, result('', key))).toThrow('on stderr')
    expect(() =>
      expectNoKeyInOutput(['login', '--with-key'], { input: `${key}\n` }, result(key, '')),
    ).toThrow()
    expect(expectNoKeyInOutput(['links', 'list'], env, result('sk_l…4d1c', '')).stdout).toBe('sk_l…4d1c')
  })
})
