import fs from 'node:fs'
import { afterEach, describe, expect, test } from 'vitest'
import { PROOF_FILE } from '../../../src/sandbox/http/proof.js'
import { SANDBOX_KEY_FILE, sandboxKeyOf } from '../../../src/shared/sandbox-key.js'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { createLocal, LINK, localLink } from '../../helpers/local-store.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { type Client, clientFor, KEY_B, trustSandbox } from '../../helpers/sandbox.js'

/**
 * `pay sandbox pay` and `pay sandbox reset`: through the
 * sandbox server that answers at the profile's base URL, so that an app using that server sees
 * the change; on the local store ($PAY_SANDBOX_DIR) only when the built-in profile has no server
 * at its address; an error for any other base URL with no sandbox. The server here keeps its
 * store in another directory than the command's local one, so each test sees which was used;
 * the command's directory holds a copy of the server's secret (`trustSandbox`), with which the server
 * proves it is the user's own: without it, nothing goes through the server
 * (test/e2e/sandbox/squatter.test.ts).
 */

afterEach(killStarted)

/** `pay sandbox start --port 0 --json` in a process of its own, on store `dir`, with `keys`. */
async function startServer(dir: string, keys: string[] = []): Promise<SandboxProcess & { api: Client }> {
  const server = await startSandboxProcess(
    [BIN, 'sandbox', 'start', '--port', '0', '--json', ...keys.flatMap((key) => ['--key', key])],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  return { ...server, api: clientFor(server.baseUrl, keys[0] ?? server.key) }
}

async function createOn(api: Client, fields: Record<string, string> = {}) {
  const answer = await api.call('POST', '/payment-links', { ...LINK, ...fields })
  expect(answer.status).toBe(200)
  return answer.json.data
}

/** The TSV of a link record as `sandbox pay` prints it piped. */
const tsv = (link: Record<string, unknown>) =>
  [
    ['_id', link._id],
    ['status', link.status],
    ['paid', link.paid],
    ['amount', link.amount],
    ['currency', link.currency],
    ['email', link.email],
    ['title', link.title],
    ['payment_url', link.payment_url],
    ['business_id', link.business_id],
    ['created_at', link.created_at],
    ['updated_at', link.updated_at],
  ]
    .map(([k, v]) => `${k}\t${v}\n`)
    .join('')

describe('pay sandbox pay', () => {
  test('through the server at the built-in profile’s address: the app sees the link paid; the local store is untouched', async () => {
    const serverDir = tempDir('pay-server-store-')
    const localDir = tempDir('pay-local-store-')
    const server = await startServer(serverDir)
    trustSandbox(serverDir, localDir)
    const link = await createOn(server.api)
    const env = { PAY_SANDBOX_DIR: localDir, PAY_SANDBOX_PORT: new URL(server.baseUrl).port }

    const paid = await runCli(['sandbox', 'pay', link._id], { env })
    expect(paid.stderr).toBe(`Paid through the sandbox at ${server.baseUrl}.\n`)
    expect(paid.code).toBe(0)
    // What the developer's app reads from the server it uses:
    const seen = (await server.api.call('GET', `/payment-links/${link._id}`)).json.data
    expect(seen).toEqual({ ...link, paid: true, updated_at: seen.updated_at })
    expect(Date.parse(seen.updated_at)).toBeGreaterThan(Date.parse(link.updated_at))
    expect(paid.stdout).toBe(tsv(seen))
    // The command never opened a store of its own.
    expect(fs.readdirSync(localDir).sort()).toEqual([PROOF_FILE, SANDBOX_KEY_FILE])

    // -p sandbox says the same; paying twice changes nothing.
    const again = await runCli(['-p', 'sandbox', 'sandbox', 'pay', link._id, '--json'], { env })
    expect(again).toMatchObject({ code: 0, stderr: '' })
    // --json: the link, what the customer got, and where they would be sent (it has no redirect_url).
    expect(JSON.parse(again.stdout)).toEqual({ outcome: 'paid', link: seen, redirect_to: null })

    // A link of the local store only is not found there: the server is what the profile names.
    const local = await createLocal(localDir, runCli)
    const missing = await runCli(['sandbox', 'pay', local._id], { env })
    expect(missing.code).toBe(5)
    expect(missing.stdout).toBe('')
    expect(missing.stderr).toBe(`Error: No payment link ${local._id} in the sandbox at ${server.baseUrl}.\n`)
    expect(localLink(localDir, local._id)?.paid).toBe(false)
  })

  test('through the server named by --base-url, or by a stored profile with its own key', async () => {
    const serverDir = tempDir('pay-server-store-')
    const server = await startServer(serverDir, [sandboxKeyOf(serverDir), KEY_B])
    const localDir = tempDir('pay-local-store-')
    trustSandbox(serverDir, localDir)
    const env = { PAY_SANDBOX_DIR: localDir, PAY_SANDBOX_PORT: '1', PAY_CONFIG_DIR: tempDir('pay-config-') }
    const first = await createOn(server.api)
    const byUrl = await runCli(['sandbox', 'pay', first._id, '--base-url', server.baseUrl, '-q'], { env })
    expect(byUrl).toMatchObject({ code: 0, stdout: `${first._id}\n`, stderr: '' })
    expect((await server.api.call('GET', `/payment-links/${first._id}`)).json.data.paid).toBe(true)

    const login = await runCli(['login', '-p', 'dev', '--base-url', server.baseUrl, '--with-key'], {
      env,
      input: `${KEY_B}\n`,
    })
    expect(login.code).toBe(0)
    const second = await createOn(clientFor(server.baseUrl, KEY_B))
    const byProfile = await runCli(['sandbox', 'pay', second._id, '-p', 'dev'], { env })
    expect(byProfile.stderr).toBe(`Paid through the sandbox at ${server.baseUrl}.\n`)
    expect(byProfile.code).toBe(0)
    const third = await createOn(clientFor(server.baseUrl, KEY_B))
    const byEnv = await runCli(['sandbox', 'pay', third._id], { env: { ...env, PAY_PROFILE: 'dev' } })
    expect(byEnv.code).toBe(0)
    // Each business pays its own links through a server: KEY_B's were made by KEY_B.
    for (const link of [second, third]) {
      expect(
        (await clientFor(server.baseUrl, KEY_B).call('GET', `/payment-links/${link._id}`)).json.data.paid,
      ).toBe(true)
    }
    expect(fs.readdirSync(localDir).sort()).toEqual([PROOF_FILE, SANDBOX_KEY_FILE])
  })

  test('a server that does not know the profile’s key: exit 4, and what to do', async () => {
    const serverDir = tempDir('pay-server-store-')
    const server = await startServer(serverDir, ['sk_test_own_key_123456'])
    const localDir = tempDir('pay-local-store-')
    trustSandbox(serverDir, localDir)
    const link = await createOn(server.api)
    const refused = await runCli(['sandbox', 'pay', link._id], {
      env: { PAY_SANDBOX_PORT: new URL(server.baseUrl).port, PAY_SANDBOX_DIR: localDir },
    })
    expect(refused).toMatchObject({ code: 4, stdout: '' })
    expect(refused.stderr).toBe(
      `Error: ${server.baseUrl} did not accept the key of profile "sandbox" (401: Unauthenticated.)\n` +
        'The sandbox running there was started with its own keys (--key, --key-file or PAY_SANDBOX_KEYS): ' +
        "send one of them with PAY_API_KEY, or restart it without any to serve its directory's own key.\n",
    )
    const withKey = await runCli(['sandbox', 'pay', link._id, '-q'], {
      env: {
        PAY_SANDBOX_PORT: new URL(server.baseUrl).port,
        PAY_SANDBOX_DIR: localDir,
        PAY_API_KEY: 'sk_test_own_key_123456',
      },
    })
    expect(withKey.code).toBe(0)
    expect((await server.api.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(true)
  })

  test('a payment through a server is journaled like every change pay sends', async () => {
    const serverDir = tempDir('pay-server-store-')
    const server = await startServer(serverDir)
    const link = await createOn(server.api)
    const journal = `${tempDir('pay-journal-')}/journal.jsonl`
    const env = {
      PAY_SANDBOX_PORT: new URL(server.baseUrl).port,
      PAY_SANDBOX_DIR: serverDir,
      PAY_JOURNAL_FILE: journal,
    }
    expect((await runCli(['sandbox', 'pay', link._id], { env })).code).toBe(0)
    const lines = fs
      .readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const path = `/_sandbox/payment-links/${link._id}/pay`
    expect(
      lines.map((l) => [
        l.phase,
        l.command,
        l.profile,
        l.base_url,
        l.method,
        l.path,
        l.resource,
        l.id,
        l.status,
      ]),
    ).toEqual([
      [
        'intent',
        'pay sandbox pay',
        'sandbox',
        server.baseUrl,
        'POST',
        path,
        'sandbox payment',
        link._id,
        undefined,
      ],
      [
        'outcome',
        'pay sandbox pay',
        'sandbox',
        server.baseUrl,
        'POST',
        path,
        'sandbox payment',
        link._id,
        200,
      ],
    ])
  })
})

describe('pay sandbox reset', () => {
  test('through the server: the records of the key’s business are deleted, other businesses’ and the local store kept', async () => {
    const serverDir = tempDir('pay-server-store-')
    const server = await startServer(serverDir, [sandboxKeyOf(serverDir), KEY_B])
    await createOn(server.api)
    const kept = await createOn(clientFor(server.baseUrl, KEY_B))
    const localDir = tempDir('pay-local-store-')
    const local = await createLocal(localDir, runCli)
    trustSandbox(serverDir, localDir)
    const env = { PAY_SANDBOX_DIR: localDir, PAY_SANDBOX_PORT: new URL(server.baseUrl).port }
    const business = server.line.packages[0].business_id

    const reset = await runCli(['sandbox', 'reset'], { env })
    expect(reset).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `The records of business ${business} in the sandbox at ${server.baseUrl} are deleted (other businesses' are kept).\n`,
    })
    expect((await server.api.call('GET', '/payment-links')).json.data.total).toBe(0)
    // Through HTTP a key acts on its own business only.
    expect((await clientFor(server.baseUrl, KEY_B).call('GET', '/payment-links')).json.data.data).toEqual([
      kept,
    ])
    expect(localLink(localDir, local._id)).toBeDefined()

    await createOn(server.api)
    const json = await runCli(['sandbox', 'reset', '--json'], { env })
    expect(json).toMatchObject({ code: 0, stderr: '' })
    // The server's answer names no local path: the command does not know the server's directory.
    expect(JSON.parse(json.stdout)).toEqual({
      reset: true,
      dir: null,
      base_url: server.baseUrl,
      business_id: business,
    })
    expect((await server.api.call('GET', '/payment-links')).json.data.total).toBe(0)
  })
})
