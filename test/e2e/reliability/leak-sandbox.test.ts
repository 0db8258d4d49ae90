import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/http/server.js'
import type { CliResult } from '../../helpers/cli.js'
import { type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { CANARY, findCanary, inModes, type LeakCase, leakEnvironment } from '../../helpers/leak.js'
import { linkCreateArgs } from '../../helpers/links.js'

/**
 * The key never leaks: the sandbox's own paths (the Host and Origin guard, the proof). A canary key in
 * PAY_API_KEY with the `sandbox` profile: to a squatter on the sandbox's port (a plain server and
 * an impostor that answers like a sandbox, both echoing every header they get), which must never
 * receive it; to the user's own sandbox once it proved itself (said in the --debug trace); and through the sandbox's refusals, 421 to a Host it does not answer and 403 to
 * a web Origin, whose messages pay shows. Every byte pay wrote is scanned as in leak.test.ts, and
 * so is every request the squatters received.
 */

const { root, dirs, state, scan, problems, pay, seedLink, scanFiles, summary } = leakEnvironment()

const squatters: FakeServer[] = []
/** A sandbox of the canary's business bound to every address, to be reached by a name it refuses. */
let open: RunningSandbox

beforeAll(async () => {
  // Both echo what they were sent (headers too) back in their answer, to tempt pay to print it.
  const echo = (request: object) => JSON.stringify(request)
  squatters.push(
    await startFakeServer((request, response) => sendJson(response, 404, { message: echo(request) })),
    await startFakeServer((request, response) =>
      sendJson(
        response,
        200,
        { service: 'pay-sandbox', proof: '0'.repeat(64), echo: echo(request) },
        { 'x-pay-sandbox': '1' },
      ),
    ),
  )
  open = await startSandbox({ dir: path.join(root, 'open-store'), keys: [CANARY], host: '0.0.0.0', port: 0 })
})

afterAll(async () => {
  await Promise.all([...squatters.map((server) => server.close()), open?.close()])
})

const portOf = (baseUrl: string) => new URL(baseUrl).port

describe('the key never leaks: sandbox paths', () => {
  it('squatters get nothing; the user’s own sandbox proves itself; 421 and 403 are shown without the key', async () => {
    const sandbox = ['-p', 'sandbox']
    const cases: LeakCase[] = []
    for (const [name, squatter] of [
      ['plain squatter', squatters[0]],
      ['impostor', squatters[1]],
    ] as const) {
      const env = {
        PAY_API_KEY: CANARY,
        PAY_SANDBOX_PORT: portOf(squatter.baseUrl),
        PAY_BASE_URL: squatter.baseUrl,
      }
      cases.push(
        // In-process instead, said on stderr; PAY_BASE_URL (the squatter too) left aside.
        ...inModes({ label: `${name}: links create`, args: [...sandbox, ...linkCreateArgs()], env, code: 0 }),
        ...inModes({ label: `${name}: links list`, args: [...sandbox, 'links', 'list'], env, code: 0 }),
        ...inModes({
          label: `${name}: --base-url`,
          args: [...sandbox, '--base-url', squatter.baseUrl, 'links', 'list'],
          env,
          code: 1,
        }),
        ...inModes({ label: `${name}: sandbox reset`, args: ['sandbox', 'reset'], env, code: 1 }),
        ...inModes({
          label: `${name}: sandbox pay --base-url`,
          args: ['sandbox', 'pay', '0123456789abcdef01234567', '--base-url', squatter.baseUrl],
          env,
          code: 1,
        }),
      )
    }
    // The user's own sandbox (its directory is PAY_SANDBOX_DIR): proved, then used with the key.
    const own = { PAY_API_KEY: CANARY, PAY_SANDBOX_PORT: portOf(state.sandbox.baseUrl) }
    const links = await Promise.all(Array.from({ length: 2 }, seedLink))
    cases.push(
      ...inModes({
        label: 'proven: links create',
        args: [...sandbox, ...linkCreateArgs()],
        env: own,
        code: 0,
      }),
      ...inModes({
        label: 'proven: --base-url links get',
        args: [...sandbox, '--base-url', state.sandbox.baseUrl, 'links', 'get', links[0]._id],
        env: own,
        code: 0,
      }),
      ...[['--json'], ['--debug']].map((mode, i) => ({
        label: `proven: sandbox pay ${mode[0]}`,
        args: ['sandbox', 'pay', links[i]._id, ...mode],
        env: own,
        code: 0,
      })),
      // 421: a name of this machine the sandbox does not answer to (127.0.0.2 reaches 0.0.0.0).
      ...inModes({
        label: '421 links list',
        args: ['links', 'list'],
        env: { PAY_API_KEY: CANARY, PAY_BASE_URL: `http://127.0.0.2:${portOf(open.baseUrl)}` },
        code: 1,
      }),
      // 403: an API request that says it comes from a web page of another origin.
      ...inModes({
        label: '403 api',
        args: ['api', '/payment-links', '-H', 'Origin: http://evil.example'],
        env: { PAY_API_KEY: CANARY, PAY_BASE_URL: state.sandbox.baseUrl },
        code: 4,
      }),
    )
    const results: (readonly [string, CliResult])[] = []
    for (const c of cases) results.push([c.label, await pay(c)] as const)
    expect(problems).toEqual([])

    // What the runs said, in substance (the rest of their output is checked by the sandbox tests).
    const stderr = (label: string) => results.find(([l]) => l === label)![1].stderr
    expect(stderr('plain squatter: links create --json')).toContain('it is not your sandbox')
    expect(stderr('impostor: --base-url --json')).toContain('could not prove it is your sandbox')
    expect(stderr('proven: links create --debug')).toContain(
      `[debug] GET ${state.sandbox.baseUrl}/_sandbox/health?challenge=…: a pay sandbox that proved it keeps its store in PAY_SANDBOX_DIR\n[debug] > POST ${state.sandbox.baseUrl}/payment-links\n`,
    )
    expect(stderr('impostor: links list --debug')).toContain(
      `[debug] GET http://127.0.0.1:${portOf(squatters[1].baseUrl)}/_sandbox/health?challenge=…: a pay sandbox that could not prove it keeps its store in PAY_SANDBOX_DIR\n`,
    )
    expect(stderr('421 links list --debug')).toContain('421')
    expect(stderr('403 api --json')).toContain(
      'This sandbox does not answer API requests from web pages of another origin.',
    )

    // The squatters: asked for their health, never sent the key, nor anything else.
    for (const squatter of squatters) {
      expect(squatter.requests.length).toBeGreaterThan(0)
      for (const request of squatter.requests) {
        expect(request.path).toMatch(/^\/_sandbox\/health\?challenge=[0-9a-f]{64}$/)
        expect(request.headers.authorization).toBeUndefined()
        scan.output(`squatter ${squatter.baseUrl} received`, JSON.stringify(request))
        expect(findCanary(JSON.stringify(request))).toEqual([])
      }
    }
  })

  it('leaves no trace in any file', () => {
    const scanned = scanFiles()
    expect(
      scanned.filter((file) => file.startsWith(`${dirs.store}${path.sep}`)).map((f) => path.basename(f)),
    ).toContain('store.db')
    expect(scan.hits).toEqual([])
    console.log(`leak scan (sandbox paths): ${summary()}`)
  })
})
