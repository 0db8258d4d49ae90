import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT, tempDir } from '../../helpers/cli.js'

/**
 * The library `pay-cli/sandbox` as a user gets it: the packed tarball installed
 * into a new project with vitest from the registry, a small suite there that imports
 * `startSandbox` and uses each member, and tsc of it against the shipped types. Uses the dist/
 * that `npm run build` made.
 */

/** The versions this repository uses, so that npm's cache has them. */
const versionOf = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version

const SUITE = `
import fs from 'node:fs'
import http from 'node:http'
import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest'
import { FixturesInvalid, type Sandbox, startSandbox, verifyWebhook } from 'pay-cli/sandbox'

let sandbox: Sandbox
const api = async (method: string, route: string, body?: unknown) => {
  const answer = await fetch(sandbox.baseUrl + route, {
    method,
    headers: { Authorization: 'Bearer ' + sandbox.keys[0], Accept: 'application/json', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: answer.status, body: await answer.json() }
}
const LINK = { email: 'ada@example.com', currency: 'EUR', amount: '25.50', title: 'Invoice 42' }

beforeAll(async () => {
  sandbox = await startSandbox({ seed: { links: [{ name: 'inv-1', ...LINK }] } })
  sandbox.snapshot('baseline')
})
beforeEach(() => {
  sandbox.restore('baseline')
  sandbox.faults.clear()
})
afterAll(async () => {
  const dir = sandbox.dir
  await sandbox.close()
  expect(fs.existsSync(dir)).toBe(false)
})

test('starts seeded on a free loopback port with its packages', async () => {
  expect(sandbox.baseUrl).toMatch(/^http:\\/\\/127\\.0\\.0\\.1:\\d+$/)
  expect(sandbox.packages.map((p) => p.name).length).toBe(3)
  const list = await api('GET', '/payment-links')
  expect(list.body.data.total).toBe(1)
})

test('pay with an outcome, then seed once and the journal of requests', async () => {
  const made = await api('POST', '/payment-links', LINK)
  const id = made.body.data._id
  expect(sandbox.pay(id, 'cancelled').outcome).toBe('cancelled')
  expect((await api('GET', '/payment-links/' + id)).body.data.paid).toBe(false)
  expect(sandbox.pay(id, 'pending')).toMatchObject({ outcome: 'pending', link: { paid: false } })
  expect((await api('GET', '/payment-links/' + id)).body.data.paid).toBe(false)
  expect(sandbox.pay(id).outcome).toBe('paid')
  expect((await api('GET', '/payment-links/' + id)).body.data.paid).toBe(true)
  const ids = sandbox.seed({ links: [{ name: 'inv-1', ...LINK }] }, { once: true })
  expect(Object.keys(ids)).toEqual(['inv-1'])
  expect((await api('GET', '/payment-links')).body.data.total).toBe(2)
  expect(sandbox.requests().some((r) => r.method === 'POST' && r.path === '/payment-links')).toBe(true)
  expect(() => sandbox.seed({ links: [{ name: 'bad' }] })).toThrow(FixturesInvalid)
})

test('restore before each test: what the last test made is gone', async () => {
  expect((await api('GET', '/payment-links')).body.data.total).toBe(1)
})

test('faults and the clock', async () => {
  sandbox.faults.set(['POST /payment-links 503 x1'])
  expect((await api('POST', '/payment-links', LINK)).status).toBe(503)
  expect((await api('POST', '/payment-links', LINK)).status).toBe(200)
  expect(sandbox.clock.advance('30d').now > new Date().toISOString()).toBe(true)
  expect(sandbox.clock.now().offset_seconds).toBe(30 * 86400)
  sandbox.reset()
  expect((await api('GET', '/payment-links')).body.data.total).toBe(0)
  expect(sandbox.clock.now().offset_seconds).toBe(0)
})

test('notifications: a payment POSTed to its webhook, signed with signatureKey, in deliveries()', async () => {
  const bodies: string[] = []
  const app = http.createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      bodies.push(body)
      response.end()
    })
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  const shop = await startSandbox({ webhooks: ['http://127.0.0.1:' + (app.address() as { port: number }).port + '/hook'] })
  try {
    const made = await fetch(shop.baseUrl + '/payment-links', {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + shop.keys[0], 'Content-Type': 'application/json' },
      body: JSON.stringify(LINK),
    })
    const id = (await made.json()).data._id
    shop.pay(id)
    await vi.waitFor(() => expect(shop.deliveries()[0]?.state).toBe('delivered'))
    expect(JSON.parse(bodies[0]).data.payment_link_id).toBe(id)
    expect(verifyWebhook(bodies[0], shop.signatureKey)).toBe(true)
    expect(verifyWebhook(bodies[0].replace('"payment_amount":2550', '"payment_amount":2551'), shop.signatureKey)).toBe(false)
  } finally {
    await shop.close()
    app.close()
  }
})
`

describe('pay-cli/sandbox, packed and installed into a new project', () => {
  test('a vitest suite there starts, drives and closes a sandbox; tsc accepts it against the shipped types', () => {
    const work = tempDir('pay-library-')
    const npm = (args: string[], cwd: string) =>
      execFileSync('npm', args, {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, npm_config_loglevel: 'error' },
      })
    const tarball = npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', work], ROOT)
      .trim()
      .split('\n')
      .pop() as string
    const project = path.join(work, 'app')
    fs.mkdirSync(project)
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    )
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        include: ['*.test.ts'],
      }),
    )
    fs.writeFileSync(path.join(project, 'sandbox.test.ts'), SUITE)
    npm(
      [
        'install',
        '--no-audit',
        '--no-fund',
        path.join(work, tarball),
        `vitest@${versionOf('vitest')}`,
        `typescript@${versionOf('typescript')}`,
        `@types/node@${versionOf('@types/node')}`,
      ],
      project,
    )
    const run = (command: string, args: string[]) =>
      spawnSync(path.join(project, 'node_modules', '.bin', command), args, {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, CI: '1', NO_COLOR: '1' },
      })
    const suite = run('vitest', ['run'])
    expect(suite.stdout + suite.stderr).toMatch(/Tests\s+5 passed \(5\)/)
    expect(suite.status).toBe(0)
    const types = run('tsc', ['-p', '.'])
    expect(types.stdout + types.stderr).toBe('')
    expect(types.status).toBe(0)
    // The library loads nothing of the CLI.
    const bundle = fs.readFileSync(path.join(project, 'node_modules/pay-cli/dist/sandbox.js'), 'utf8')
    expect(bundle).not.toMatch(/@oclif|from "got"|@inquirer/)
  }, 600_000)
})
