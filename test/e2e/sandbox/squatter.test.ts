import http from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import {
  type FakeServer,
  type RecordedRequest,
  sendJson,
  startFakeServer,
} from '../../helpers/fake-server.js'
import { linkCreateArgs } from '../../helpers/links.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { clientFor, readStore } from '../../helpers/sandbox.js'

/**
 * A process squatting the sandbox's port gets no real key, and no customer's data. Any local user may listen on 127.0.0.1:4010 first; pay sends a key other than the
 * built-in sandbox key, and the records of `-p sandbox`, only to a sandbox that proved it holds
 * the secret of the user's own PAY_SANDBOX_DIR. Each squatter here is a plain node:http server
 * that records every request with every header: a plain web server, an impostor that answers the
 * health route like a sandbox, and a relay that asks the user's real sandbox (on another port)
 * for the proof pay asked it for. `-p sandbox` never goes to PAY_BASE_URL either.
 */

const LIVE_KEY = 'sk_live_squatter_canary_9d8c7b6a5f4e'

afterEach(killStarted)

const servers: FakeServer[] = []
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function squatter(handler: Parameters<typeof startFakeServer>[0]): Promise<FakeServer> {
  const server = await startFakeServer(handler)
  servers.push(server)
  return server
}

/** Nothing a squatter received carries the key, in any header, path or body. */
function expectNoKey(requests: RecordedRequest[]): void {
  for (const request of requests) {
    expect(JSON.stringify(request)).not.toContain(LIVE_KEY)
    expect(JSON.stringify(request)).not.toContain(LIVE_KEY.slice(8, 20))
  }
}

/** What the squatter was asked: the health route with pay's challenge, no key; nothing else. */
const onlyHealth = (requests: RecordedRequest[]) =>
  requests.map((r) => [r.method, r.path.replace(/=[0-9a-f]{64}$/, '=C'), r.headers.authorization])

const HEALTH_ONLY = [['GET', '/_sandbox/health?challenge=C', undefined]]

const portOf = (server: { baseUrl: string }) => new URL(server.baseUrl).port

/** `pay sandbox start --port 0 --json` on store `dir`. */
const startServer = (dir: string, keys: string[] = [], more: string[] = []) =>
  startSandboxProcess(
    [BIN, 'sandbox', 'start', '--port', '0', '--json', ...keys.flatMap((key) => ['--key', key]), ...more],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )

/** A live service PAY_BASE_URL points at, for item 3: it must receive nothing from `-p sandbox`. */
let live: FakeServer
beforeAll(async () => {
  live = await squatter((_, res) => sendJson(res, 500, { message: 'the live service was called' }))
})

const squatterWarning = (port: string, dir: string, instead: string) =>
  `Warning: Something else holds port ${port}: it is not your sandbox (it could not prove it keeps its store in ${dir}). It was sent nothing: ${instead}.\n`

describe('-p sandbox with a squatter on its port', () => {
  test.each([
    [
      'a plain web server',
      (_: RecordedRequest, res: http.ServerResponse) => sendJson(res, 404, { message: 'Not Found' }),
    ],
    [
      'an impostor that answers like a sandbox',
      (_: RecordedRequest, res: http.ServerResponse) =>
        sendJson(res, 200, { service: 'pay-sandbox', proof: '0'.repeat(64) }, { 'x-pay-sandbox': '1' }),
    ],
  ])('%s: gets no key and no record; the command runs in-process and says why', async (_, handler) => {
    const port = await squatter(handler)
    const dir = tempDir('pay-squat-')
    const env = {
      PAY_SANDBOX_DIR: dir,
      PAY_SANDBOX_PORT: portOf(port),
      PAY_API_KEY: LIVE_KEY,
      PAY_BASE_URL: live.baseUrl,
    }
    const created = await runCli(['-p', 'sandbox', ...linkCreateArgs(), '--json'], { env })
    expect(created.code).toBe(0)
    const link = JSON.parse(created.stdout)
    expect(created.stderr).toBe(
      'Using the API key from PAY_API_KEY (sk_l…5f4e) instead of profile "sandbox"\'s.\n' +
        `PAY_BASE_URL (${live.baseUrl}) is left aside for the sandbox profile, which talks only to your own sandbox (--base-url points it at one on another port).\n` +
        squatterWarning(portOf(port), dir, 'this command ran its own sandbox in-process') +
        `Warning: The page addresses printed point at http://127.0.0.1:${portOf(port)}, where that other program answers, not your sandbox. ` +
        'Serve them from yours on a free port (`pay sandbox start --port 0`, then PAY_SANDBOX_PORT set to its port).\n',
    )
    expect(onlyHealth(port.requests)).toEqual(HEALTH_ONLY)
    expectNoKey(port.requests)
    expect(live.requests).toEqual([])
    // The record is in the user's own store.
    const stored = Object.values(readStore(dir).businesses).flatMap((b) => Object.keys(b.payment_links))
    expect(stored).toEqual([link._id])
  })

  test('a relay that asks the user’s real sandbox (another port) for the proof: refused all the same', async () => {
    const dir = tempDir('pay-squat-')
    const real = await startServer(dir)
    const relay = await squatter(async (request, response) => {
      const answer = await new Promise<{ status: number; body: string }>((resolve) => {
        http.get(`${real.baseUrl}${request.path}`, (res) => {
          let body = ''
          res.setEncoding('utf8').on('data', (chunk) => {
            body += chunk
          })
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        })
      })
      response.writeHead(answer.status, { 'content-type': 'application/json', 'x-pay-sandbox': '1' })
      response.end(answer.body)
    })
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: portOf(relay), PAY_API_KEY: LIVE_KEY }
    const listed = await runCli(['-p', 'sandbox', 'links', 'list', '--json'], { env })
    expect(listed).toMatchObject({ code: 0, stdout: '[]\n' })
    expect(listed.stderr).toContain(
      squatterWarning(portOf(relay), dir, 'this command ran its own sandbox in-process'),
    )
    expect(onlyHealth(relay.requests)).toEqual(HEALTH_ONLY)
    expectNoKey(relay.requests)
  })

  test('sandbox pay at the squatter’s port: the local store, said so; through --base-url or PAY_BASE_URL: refused, exit 1', async () => {
    const impostor = await squatter((_, res) =>
      sendJson(res, 200, { service: 'pay-sandbox', proof: '0'.repeat(64) }, { 'x-pay-sandbox': '1' }),
    )
    const dir = tempDir('pay-squat-')
    const made = await runCli(['-p', 'sandbox', ...linkCreateArgs(), '-q'], { env: { PAY_SANDBOX_DIR: dir } })
    const id = made.stdout.trim()
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: portOf(impostor), PAY_API_KEY: LIVE_KEY }
    const local = await runCli(['sandbox', 'pay', id, '-q'], { env })
    expect(local).toMatchObject({ code: 0, stdout: `${id}\n` })
    expect(local.stderr).toContain(squatterWarning(portOf(impostor), dir, 'the local store was used'))

    const hint = `\`pay sandbox pay\` sends its key and data only to your own sandbox: one started with \`pay sandbox start\` with the same PAY_SANDBOX_DIR (${dir}).\n`
    const byUrl = await runCli(['sandbox', 'pay', id, '--base-url', impostor.baseUrl], { env })
    expect(byUrl).toMatchObject({ code: 1, stdout: '' })
    expect(byUrl.stderr).toContain(
      `Error: ${impostor.baseUrl} could not prove it is your sandbox: nothing was sent to it.\n${hint}`,
    )
    const byEnv = await runCli(['sandbox', 'reset'], { env: { ...env, PAY_BASE_URL: impostor.baseUrl } })
    expect(byEnv).toMatchObject({ code: 1, stdout: '' })
    expect(byEnv.stderr).toBe(
      `Error: ${impostor.baseUrl} could not prove it is your sandbox: nothing was sent to it.\n${hint.replace('sandbox pay', 'sandbox reset')}`,
    )
    // -p sandbox --base-url: the same rule for every command.
    const created = await runCli(['-p', 'sandbox', '--base-url', impostor.baseUrl, ...linkCreateArgs()], {
      env,
    })
    expect(created).toMatchObject({ code: 1, stdout: '' })
    expect(created.stderr).toContain(
      `Error: ${impostor.baseUrl} could not prove it is your sandbox: nothing was sent to it.\n`,
    )
    expect(onlyHealth(impostor.requests)).toEqual([
      ...HEALTH_ONLY,
      ...HEALTH_ONLY,
      ...HEALTH_ONLY,
      ...HEALTH_ONLY,
    ])
    expectNoKey(impostor.requests)
  })
})

describe('the user’s own sandbox', () => {
  test('started with --key: PAY_API_KEY from the same PAY_SANDBOX_DIR goes to it, at its port or by --base-url', async () => {
    const dir = tempDir('pay-own-')
    const server: SandboxProcess = await startServer(dir, [LIVE_KEY])
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: portOf(server), PAY_API_KEY: LIVE_KEY }
    const atPort = await runCli(['-p', 'sandbox', ...linkCreateArgs(), '--json'], { env })
    expect(atPort.code).toBe(0)
    expect(atPort.stderr).toBe(
      'Using the API key from PAY_API_KEY (sk_l…5f4e) instead of profile "sandbox"\'s.\n',
    )
    const link = JSON.parse(atPort.stdout)
    expect(link.payment_url).toBe(`${server.baseUrl}/checkout/pay?id=${link._id}`)
    const seen = await clientFor(server.baseUrl, LIVE_KEY).call('GET', `/payment-links/${link._id}`)
    expect(seen.status).toBe(200)

    const byUrl = await runCli(['-p', 'sandbox', '--base-url', server.baseUrl, 'links', 'list', '-q'], {
      env: { ...env, PAY_SANDBOX_PORT: '1' },
    })
    expect(byUrl).toMatchObject({ code: 0, stdout: `${link._id}\n` })
  })

  test('a second PAY_SANDBOX_DIR does not trust it: in-process on its own store, and the server gets no key', async () => {
    const dir = tempDir('pay-own-')
    // --verbose: its log then shows the health questions too.
    const server = await startServer(dir, [LIVE_KEY], ['--verbose'])
    const other = tempDir('pay-other-')
    const env = { PAY_SANDBOX_DIR: other, PAY_SANDBOX_PORT: portOf(server), PAY_API_KEY: LIVE_KEY }
    const created = await runCli(['-p', 'sandbox', ...linkCreateArgs(), '-q'], { env })
    expect(created.code).toBe(0)
    expect(created.stderr).toContain(
      squatterWarning(portOf(server), other, 'this command ran its own sandbox in-process'),
    )
    const onServer = await clientFor(server.baseUrl, LIVE_KEY).call('GET', '/payment-links')
    expect(onServer.json.data.total).toBe(0)
    // Its request log: the health question alone (no header is ever logged; the path carries no key).
    await expect.poll(() => server.stderr()).toMatch(/GET \/_sandbox\/health\?challenge=\[REDACTED\] 200/)
    expect(server.stderr()).not.toMatch(/payment-links/)
  })
})

test('-p sandbox --base-url where nothing listens: exit 6, nothing run in-process in its place', async () => {
  const dir = tempDir('pay-none-')
  const result = await runCli(['-p', 'sandbox', '--base-url', 'http://127.0.0.1:1', 'links', 'list'], {
    env: { PAY_SANDBOX_DIR: dir },
  })
  expect(result).toMatchObject({ code: 6, stdout: '' })
  expect(result.stderr).toBe(
    'Error: No pay sandbox answers at http://127.0.0.1:1.\n' +
      `\`pay -p sandbox\` sends its key and data only to your own sandbox: one started with \`pay sandbox start\` with the same PAY_SANDBOX_DIR (${dir}).\n`,
  )
})

describe('PAY_BASE_URL and the built-in profile', () => {
  test('-p sandbox and PAY_PROFILE=sandbox never go to PAY_BASE_URL, and say so once', async () => {
    for (const [args, extra] of [
      [['-p', 'sandbox', ...linkCreateArgs(), '-q'], {}],
      [[...linkCreateArgs(), '-q'], { PAY_PROFILE: 'sandbox' }],
    ] as const) {
      const result = await runCli([...args], {
        env: { PAY_API_KEY: LIVE_KEY, PAY_BASE_URL: live.baseUrl, ...extra },
      })
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/^[0-9a-f]{24}\n$/)
      const said = result.stderr.split('\n').filter((line) => line.startsWith('PAY_BASE_URL'))
      expect(said).toEqual([
        `PAY_BASE_URL (${live.baseUrl}) is left aside for the sandbox profile, which talks only to your own sandbox (--base-url points it at one on another port).`,
      ])
    }
    expect(live.requests).toEqual([])
  })
})
