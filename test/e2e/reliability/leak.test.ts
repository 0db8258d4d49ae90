import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { ENDPOINTS, type EndpointName, endpointAt } from '../../../src/shared/endpoints.js'
import { type CliResult, expectNoKeyInOutput } from '../../helpers/cli.js'
import { commandOfArgs, idOnlyCommands, tracedRequests, undeclaredRequests } from '../../helpers/endpoints.js'
import { CANARY, inModes, type LeakCase, leakEnv, leakEnvironment, MODES } from '../../helpers/leak.js'
import { type Json, linkCreateArgs } from '../../helpers/links.js'
import { COMMAND_IDS } from '../../helpers/manifest.js'
import { startReceiver } from '../../helpers/receiver.js'
import { mapConcurrent } from '../../helpers/subs.js'

/**
 * The key never leaks. Every command runs with a recognisable key against a sandbox that
 * knows it (in this process) and against servers that answer every kind of failure, many of
 * them echoing the key back in bodies, headers and status lines. Every byte pay wrote is then
 * scanned for the key and for any 8 consecutive characters of its secret part: stdout, stderr,
 * and every file under the run's HOME, XDG dirs, TMPDIR, config dir, sandbox store and
 * --report files, except the config file itself (where `pay login` keeps the key by design).
 * This file: the success paths of every command.
 */

const leak = leakEnvironment()
const { dirs, state, scan, problems, seedLink, seedSub, scanFiles, summary, commandsRun } = leak

/** Each request the runs' --debug traces show, by the command (as typed) that sent it. */
const traced: { command: string; method: string; path: string }[] = []

/** Runs a case (leak.pay) and keeps the requests its trace shows. */
async function pay(c: LeakCase): Promise<CliResult> {
  const result = await leak.pay(c)
  const command = commandOfArgs(c.args)?.replace(/:/g, ' ') ?? c.args.join(' ')
  for (const request of tracedRequests(result.stderr)) traced.push({ command, ...request })
  return result
}

/**
 * The commands of the manifest the success paths do not run here, and where their key is
 * scanned instead. Any other command of the manifest not run below fails the scan: a new command
 * is scanned from the day it is added.
 */
const SCANNED_ELSEWHERE: Record<string, string> = {
  'sandbox:start':
    'a server until stopped: test/e2e/reliability/leak-sandbox.test.ts runs sandboxes in process',
  'sandbox:listen':
    'runs until stopped: test/e2e/sandbox/listen.test.ts runs it with the key and checks its output and what it forwards',
}

/**
 * The endpoints (src/shared/endpoints.ts) no success path below sends, and why. Any other endpoint
 * not in the runs' --debug traces fails the scan: a new endpoint is scanned from the day it is
 * declared, and a command sending to one its declaration does not name fails it too.
 */
const ENDPOINTS_SENT_ELSEWHERE: Partial<Record<EndpointName, string>> = {}

/** An MCP session as lines on stdin: initialize, then each tool call. */
function mcpSession(calls: [string, Record<string, unknown>][]): string {
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'leak', version: '1' } },
  }
  const messages = [
    initialize,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...calls.map(([name, args], i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name, arguments: args },
    })),
  ]
  return messages.map((message) => `${JSON.stringify(message)}\n`).join('')
}

describe('the key never leaks', () => {
  it('success paths: every command, with --json and with --debug (the piped output plus the trace)', async () => {
    // Logins first: the profiles they store are used by every command after them.
    const login = (profile: string, flags: string[]): LeakCase => ({
      label: `login --with-key ${flags.join(' ') || 'piped'}`,
      args: ['login', '--profile', profile, '--base-url', state.sandbox.baseUrl, '--with-key', ...flags],
      input: `${CANARY}\n`,
      code: 0,
    })
    for (const c of [login('live', ['--no-verify']), login('live2', ['--json']), login('live3', ['--debug'])])
      await pay(c)
    const stored = JSON.parse(fs.readFileSync(path.join(dirs.config, 'config.json'), 'utf8'))
    expect(stored.profiles.live.api_key).toBe(CANARY) // the one file allowed to hold it

    const links = await Promise.all(Array.from({ length: 34 }, seedLink))
    const subs = await Promise.all(Array.from({ length: 16 }, seedSub))
    // Notifications: deliveries of the key's business to resend, endpoints to remove.
    const hook = await startReceiver()
    await leak.call('POST', '/_sandbox/webhooks', { url: hook.url })
    for (const link of await Promise.all(Array.from({ length: MODES.length }, seedLink))) {
      await leak.call('POST', `/_sandbox/payment-links/${link._id}/pay`)
    }
    await vi.waitFor(() =>
      expect(state.sandbox.webhooks.deliveries().map((d) => d.state)).toEqual(MODES.map(() => 'delivered')),
    )
    const deliveries = state.sandbox.webhooks.deliveries()
    const endpoints = await Promise.all(
      MODES.map(([mode]) => leak.call('POST', '/_sandbox/webhooks', { url: `http://127.0.0.1:9/${mode}` })),
    )
    const id = (list: { _id: string }[]) => list.shift()!._id
    const perMode = (make: (mode: string) => LeakCase): LeakCase[] =>
      MODES.map(([mode, flags]) => {
        const c = make(mode.replace(/^-+/, ''))
        return { ...c, label: `${c.label} ${mode}`, args: [...c.args, ...flags] }
      })

    const cases: LeakCase[] = [
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
      // Through the sandbox that knows the key: every outcome's endpoint.
      ...['paid', 'pending', 'cancelled', 'failed'].flatMap((outcome) =>
        perMode(() => ({
          label: `sandbox pay --outcome ${outcome} (through the sandbox)`,
          args: ['sandbox', 'pay', id(links), '--outcome', outcome],
          env: leakEnv(state.sandbox.baseUrl),
          code: 0,
        })),
      ),
      ...inModes({
        label: 'subs create',
        args: ['subs', 'create', '--package-id', state.packageId, '--email', 'a@b.co', '--phone', '1'],
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
      // Scripting: pay api (a GET, a POST, --paginate, -i) and --jq / --jsonl.
      ...inModes({ label: 'api GET -i', args: ['api', '/payment-links', '-i'], code: 0 }),
      ...inModes({
        label: 'api POST',
        args: [
          'api',
          '/payment-links',
          '-f',
          'email=a@b.co',
          '-f',
          'currency=EUR',
          '-f',
          'amount=1',
          '-f',
          'title=T',
        ],
        code: 0,
      }),
      ...inModes({
        label: 'api --paginate --jq',
        args: ['api', '/payment-links', '--paginate', '--jq', 'length'],
        code: 0,
      }),
      ...inModes({ label: 'links list --jq', args: ['links', 'list', '--all', '--jq', '.[]._id'], code: 0 }),
      ...inModes({ label: 'links list --jsonl', args: ['links', 'list', '--all', '--jsonl'], code: 0 }),
      ...perMode(() => ({
        label: 'links get --jq',
        args: ['links', 'get', id(links), '--jq', '.title'],
        code: 0,
      })),
      ...inModes({
        label: 'subs list --jsonl --jq',
        args: ['subs', 'list', '--jsonl', '--jq', '.package.name'],
        code: 0,
      }),
      // The browser `links open` starts writes its whole environment into the scanned tree:
      // pay's variables, PAY_API_KEY first, never reach it.
      ...perMode((mode) => {
        const envFile = path.join(dirs.tmp, `browser-env-${mode}`)
        return {
          label: 'links open (BROWSER, PAY_API_KEY set)',
          args: ['links', 'open', id(links)],
          env: { PAY_API_KEY: CANARY, BROWSER: `env > '${envFile}'; true` },
          code: 0,
          check: () => {
            const seen = fs.readFileSync(envFile, 'utf8')
            expect(seen).toMatch(/^HOME=/m)
            expect(seen.split('\n').filter((line) => /^PAY_/i.test(line))).toEqual([])
          },
        }
      }),
      // Waiting for a payment (until its timeout), who has not paid, the sandbox clock.
      ...perMode(() => ({
        label: 'links wait --timeout',
        args: ['links', 'wait', id(links), '--timeout', '1s'],
        code: 8,
      })),
      ...inModes({ label: 'subs list --overdue', args: ['subs', 'list', '--overdue', '1d'], code: 0 }),
      ...inModes({ label: 'sandbox clock', args: ['sandbox', 'clock'], code: 0 }),
      ...inModes({ label: 'sandbox clock advance', args: ['sandbox', 'clock', 'advance', '1h'], code: 0 }),
      ...inModes({
        label: 'sandbox clock (through the sandbox)',
        args: ['sandbox', 'clock'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      }),
      ...inModes({
        label: 'sandbox clock advance (through the sandbox)',
        args: ['sandbox', 'clock', 'advance', '1h'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      }),
      ...inModes({ label: 'profiles list', args: ['profiles', 'list'], code: 0 }),
      ...inModes({ label: 'profiles show', args: ['profiles', 'show', 'live'], code: 0 }),
      ...inModes({ label: 'sandbox packages', args: ['sandbox', 'packages'], code: 0 }),
      ...perMode(() => ({ label: 'links qr', args: ['links', 'qr', id(links)], code: 0 })),
      ...inModes({ label: 'history', args: ['history'], code: 0 }),
      ...inModes({ label: 'commands', args: ['commands'], code: 0 }),
      // pay mcp with the current profile (live): a session given whole on stdin, every answer on stdout.
      ...perMode(() => ({
        label: 'mcp --allow-writes (list, get, create, a plan)',
        args: ['mcp', '--allow-writes'],
        input: mcpSession([
          ['links_list', { limit: 2 }],
          ['links_get', { id: id(links) }],
          ['links_create', { email: 'a@b.co', currency: 'EUR', amount: '1', title: 'T' }],
          ['links_update', { id: id(links), title: 'U' }],
          ['links_delete', { ids: [id(links)] }],
          ['subs_list', { status: 'created' }],
          ['subs_get', { id: id(subs) }],
          ['subs_create', { package_id: state.packageId, email: 'a@b.co' }],
          ['subs_update', { id: id(subs), phone_no: '2' }],
          ['subs_cancel', { ids: [id(subs)] }],
          ['token_create', { email: 'a@b.co', title: 'T', description: 'D' }],
        ]),
        code: 0,
      })),
      ...inModes({ label: 'version', args: ['version'], code: 0 }),
      ...inModes({ label: 'autocomplete fish', args: ['autocomplete', 'fish'], code: 0 }),
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
        env: leakEnv(state.sandbox.baseUrl),
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
    // A command that only sends a request about one record by id, and that no case above runs, is
    // run with a seeded record of its noun: a new one is scanned from the day it is declared. Its
    // outcome depends on the record (a refund of an unpaid link is refused), not on the scan.
    const handRun = new Set(cases.map((c) => commandOfArgs(c.args)))
    for (const { command, noun } of idOnlyCommands()) {
      if (handRun.has(command.replace(/ /g, ':'))) continue
      const records = noun === 'subscription' ? subs : links
      cases.push(
        ...perMode(() => ({
          label: command,
          args: [...command.split(' '), id(records)],
          code: [0, 1, 3, 5],
        })),
      )
    }
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
    // The account's: webhook events (the sandbox's endpoints of the key's business) to change and
    // remove, and a notification the app got to verify.
    const events = await Promise.all(
      [...MODES, 'disabled'].map((_, i) =>
        leak.call('POST', '/_sandbox/webhooks', { url: `http://127.0.0.1:9/event-${i}` }),
      ),
    )
    // The account's secrets, kept in the config file alone: its password, and the access token of
    // each sign-in (read after each run); never in a run's output, --debug's trace included.
    const accountSecrets = new Set([state.sandbox.account.password])
    const noAccountSecret = (result: CliResult) => {
      const config = JSON.parse(fs.readFileSync(path.join(dirs.config, 'config.json'), 'utf8'))
      accountSecrets.add(String(config.profiles.shop.access_token))
      for (const secret of accountSecrets) expect(result.stdout + result.stderr).not.toContain(secret)
    }
    const notification = path.join(dirs.tmp, 'notification.json')
    fs.writeFileSync(notification, hook.received[0].body)
    const fixtures = path.join(dirs.tmp, 'fixtures.json')
    fs.writeFileSync(
      fixtures,
      JSON.stringify({
        links: [{ name: 'seeded', email: 'seed@example.com', currency: 'EUR', amount: '1', title: 'S' }],
      }),
    )
    for (const c of [
      ...inModes({ label: 'profiles use', args: ['profiles', 'use', 'live'], code: 0 }),
      { label: 'profiles remove', args: ['profiles', 'remove', 'live'], code: 0 },
      { label: 'profiles remove --json', args: ['profiles', 'remove', 'live2', '--json'], code: 0 },
      { label: 'profiles remove --debug', args: ['profiles', 'remove', 'live3', '--debug'], code: 0 },
      // The account (`pay login --email`): its key is the one scanned for, its token and signature key
      // kept in the config file alone; its webhook events are the sandbox's endpoints.
      ...[
        ...inModes({
          label: 'login --email',
          args: [
            'login',
            '--email',
            state.sandbox.account.email,
            '--password-stdin',
            '-p',
            'shop',
            '--base-url',
            `${state.sandbox.baseUrl}/api`,
          ],
          input: `${state.sandbox.account.password}\n`,
          code: 0,
        }),
        ...inModes({ label: 'businesses list', args: ['businesses', 'list', '-p', 'shop'], code: 0 }),
        ...inModes({ label: 'webhooks add', args: ['webhooks', 'add', hook.url, '-p', 'shop'], code: 0 }),
        ...inModes({ label: 'webhooks list', args: ['webhooks', 'list', '-p', 'shop'], code: 0 }),
        ...inModes({
          label: 'webhooks disable',
          args: ['webhooks', 'disable', events[0]._id, '-p', 'shop'],
          code: 0,
        }),
        ...inModes({
          label: 'webhooks enable',
          args: ['webhooks', 'enable', events[0]._id, '-p', 'shop'],
          code: 0,
        }),
        ...perMode(() => ({
          label: 'webhooks remove',
          args: ['webhooks', 'remove', String(events.pop()?._id), '--yes', '-p', 'shop'],
          code: 0,
        })),
        ...inModes({
          label: 'webhooks verify',
          args: ['webhooks', 'verify', '--file', notification, '-p', 'shop'],
          code: 0,
        }),
      ].map((c) => ({ ...c, check: noAccountSecret })),
      // The sandbox as a test double, through the sandbox that knows the key: its
      // fault rules, and the requests it kept (bodies shown, keys in them redacted).
      ...inModes({
        label: 'sandbox faults set',
        args: ['sandbox', 'faults', 'set', 'GET /nothing-here 503 x1'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      }),
      ...inModes({
        label: 'sandbox faults list',
        args: ['sandbox', 'faults', 'list'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      }),
      ...inModes({
        label: 'sandbox faults clear',
        args: ['sandbox', 'faults', 'clear'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      }),
      ...inModes({
        label: 'sandbox requests',
        args: ['sandbox', 'requests'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      }),
      // Notifications: endpoints and deliveries, through the sandbox that knows the key and in the local store.
      ...[leakEnv(state.sandbox.baseUrl), undefined].flatMap((env) => [
        ...inModes({
          label: 'sandbox webhooks add',
          args: ['sandbox', 'webhooks', 'add', hook.url],
          env,
          code: 0,
        }),
        ...inModes({ label: 'sandbox webhooks list', args: ['sandbox', 'webhooks', 'list'], env, code: 0 }),
        ...inModes({
          label: 'sandbox webhooks deliveries',
          args: ['sandbox', 'webhooks', 'deliveries'],
          env,
          code: 0,
        }),
      ]),
      ...perMode(() => ({
        label: 'sandbox webhooks remove',
        args: ['sandbox', 'webhooks', 'remove', String(endpoints.shift()?._id)],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      })),
      ...perMode(() => ({
        label: 'sandbox webhooks resend',
        args: ['sandbox', 'webhooks', 'resend', String(deliveries.shift()?._id)],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      })),
      // Fixtures and snapshots: seeded through the sandbox that knows the key; the
      // snapshots of the scanned store, which that sandbox serves.
      ...inModes({
        label: 'sandbox seed',
        args: ['sandbox', 'seed', fixtures],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      }),
      ...perMode((mode) => ({
        label: 'sandbox snapshot save',
        args: ['sandbox', 'snapshot', 'save', mode],
        code: 0,
      })),
      ...inModes({ label: 'sandbox snapshot list', args: ['sandbox', 'snapshot', 'list'], code: 0 }),
      ...perMode((mode) => ({
        label: 'sandbox snapshot restore',
        args: ['sandbox', 'snapshot', 'restore', mode],
        code: 0,
      })),
      ...perMode((mode) => ({
        label: 'sandbox snapshot delete',
        args: ['sandbox', 'snapshot', 'delete', mode],
        code: 0,
      })),
      ...inModes({ label: 'sandbox clock set', args: ['sandbox', 'clock', 'set', '2099-01-01'], code: 0 }),
      ...inModes({
        label: 'sandbox reset (through the sandbox)',
        args: ['sandbox', 'reset'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 0,
      }),
      ...inModes({ label: 'sandbox reset', args: ['sandbox', 'reset'], code: 0 }),
    ])
      await pay(c)
    expect(problems).toEqual([])
    // A token per sign-in (one per mode), each looked for in every run after it.
    expect([...accountSecrets].filter((secret) => secret.startsWith('sat_'))).toHaveLength(MODES.length)
    // What the notifications carried to the app: never the key.
    expect(hook.received.length).toBeGreaterThan(MODES.length)
    expect(JSON.stringify(hook.received)).not.toContain(CANARY)
    await hook.close()
    // Every command of the manifest, but those scanned elsewhere (said why above).
    const ran = commandsRun()
    expect(COMMAND_IDS.filter((id) => !ran.has(id) && !(id in SCANNED_ELSEWHERE))).toEqual([])
    // Every endpoint declared, but those sent elsewhere; each command sent only what it declares.
    const sent = new Set(traced.map(({ method, path }) => endpointAt(method, path)))
    const unsent = Object.entries(ENDPOINTS).filter(
      ([name, endpoint]) => !sent.has(endpoint) && !(name in ENDPOINTS_SENT_ELSEWHERE),
    )
    expect(unsent.map(([name]) => name)).toEqual([])
    const commanded = traced.filter(({ command }) => command !== 'api')
    expect(commanded.flatMap(({ command, ...request }) => undeclaredRequests(command, [request]))).toEqual([])
  }, 240_000) // some 140 runs of pay, 4 at a time: a hang detector, not a time goal (a busy machine takes minutes)

  it('the key in odd forms (percent-encoded in a path or a query, as an Idempotency-Key, as an id of pay api): never in a trace, the journal, history or the sandbox’s recorded requests', async () => {
    const hex = (char: string) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`
    /** Every character percent-encoded; every other one, in lower-case hex; the first twice over. */
    const encoded = [...CANARY].map(hex).join('')
    const mixed = [...CANARY].map((char, i) => (i % 2 ? hex(char).toLowerCase() : char)).join('')
    const twice = `%25${hex(CANARY[0]).slice(1)}${CANARY.slice(1)}`
    const env = leakEnv(state.sandbox.baseUrl)
    const create = (key: string): string[] => [...linkCreateArgs(), '--idempotency-key', key]
    const cases: LeakCase[] = [
      ...inModes({
        label: 'api GET path (encoded)',
        args: ['api', `/payment-links/${encoded}`],
        env,
        code: 5,
      }),
      ...inModes({ label: 'api GET path (twice)', args: ['api', `/payment-links/${twice}`], env, code: 5 }),
      ...inModes({
        label: 'api GET query (mixed)',
        args: ['api', `/payment-links?reference=${mixed}`],
        env,
        code: 0,
      }),
      ...inModes({
        label: 'api DELETE id',
        args: ['api', '-X', 'DELETE', `/payment-links/${CANARY}`],
        env,
        code: 5,
      }),
      ...inModes({
        label: 'api DELETE id (mixed)',
        args: ['api', '-X', 'DELETE', `/payment-links/${mixed}`],
        env,
        code: 5,
      }),
      ...inModes({ label: 'links create --idempotency-key', args: create(CANARY), env, code: 0 }),
      ...inModes({
        label: 'api POST Idempotency-Key (encoded)',
        args: [
          'api',
          '/payment-links',
          '-H',
          `Idempotency-Key: ${encoded}`,
          '-f',
          'email=a@b.co',
          '-f',
          'currency=EUR',
          '-f',
          'amount=1',
          '-f',
          'title=T',
        ],
        env,
        code: 0,
      }),
    ]
    for (const c of cases) await pay(c)
    // What the journal, history and the sandbox kept of them, read after all of them ran.
    const history = await pay({
      label: 'history --json (odd forms)',
      args: ['history', '--json', '--limit', '20'],
      code: 0,
    })
    await pay({ label: 'history (odd forms)', args: ['history', '--limit', '20'], code: 0 })
    const requests = await pay({
      label: 'sandbox requests (odd forms)',
      args: ['sandbox', 'requests', '--json'],
      env,
      code: 0,
    })
    expect(problems).toEqual([])
    // They were all there to be read, each form in its place.
    const changes = JSON.parse(history.stdout) as Json[]
    expect(
      changes.filter((c) => c.path === '/payment-links/[REDACTED]' && c.method === 'DELETE'),
    ).toHaveLength(4)
    expect(changes.filter((c) => c.idempotency_key === '[REDACTED]')).toHaveLength(4)
    const kept = JSON.parse(requests.stdout) as Json[]
    expect(kept.filter((r) => r.idempotency_key === '[REDACTED]')).toHaveLength(4)
    expect(kept.filter((r) => r.path === '/payment-links/[REDACTED]').length).toBeGreaterThanOrEqual(8)
    expect(kept.filter((r) => r.path === '/payment-links?reference=[REDACTED]')).toHaveLength(2)
  })

  it('leaves no trace in any file: store, reports, caches, config dir, HOME, TMPDIR', () => {
    const scanned = scanFiles((file) => file.endsWith('inject-crash.cjs'))
    const under = (dir: string) => scanned.filter((file) => file.startsWith(`${dir}${path.sep}`))
    // The files the runs are known to write were there to be scanned.
    expect(under(dirs.store).map((file) => path.basename(file))).toContain('store.db')
    expect(under(dirs.data)).toContain(path.join(dirs.data, 'pay', 'journal.jsonl'))
    // Two reports, each with its .meta.json.
    expect(under(dirs.reports).length).toBe(4)
    if (!(process.versions.node.split('.').map(Number)[0] >= 22)) {
      expect(under(path.join(dirs.cache, 'pay')).some((file) => /v8-.*\.bin$/.test(file))).toBe(true)
    }
    expect(scan.hits).toEqual([])
    console.log(`leak scan (success paths): ${summary()}`)
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
