import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { PROOF_FILE } from '../../../src/sandbox/http/proof.js'
import { SANDBOX_KEY_FILE } from '../../../src/shared/sandbox-key.js'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { type Client, clientFor, trustSandbox } from '../../helpers/sandbox.js'
import { fixtureFile, fixtures, LINK, localRecords, NAMES, rows } from '../../helpers/seed-fixtures.js'

/**
 * `pay sandbox seed FILE [--once]` and `pay sandbox start --seed FILE`, run as
 * bin/run.js: through the sandbox serving the profile's address when one runs, else on the local
 * store; exit 3 naming the entry and field for an invalid file (nothing kept), exit 2 for a file
 * that is not JSON. The store-level rules are in test/unit/sandbox/double/fixtures.test.ts.
 */

afterEach(killStarted)

async function startServer(dir: string, extra: string[] = []): Promise<SandboxProcess & { api: Client }> {
  const server = await startSandboxProcess(
    [BIN, 'sandbox', 'start', '--port', '0', '--json', ...extra],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  return { ...server, api: clientFor(server.baseUrl, server.key) }
}

describe('pay sandbox seed', () => {
  test('through the running sandbox: the key’s business gets the records, the local store is untouched', async () => {
    const serverDir = tempDir('pay-server-store-')
    const localDir = tempDir('pay-local-store-')
    const server = await startServer(serverDir)
    trustSandbox(serverDir, localDir)
    const env = { PAY_SANDBOX_DIR: localDir, PAY_SANDBOX_PORT: new URL(server.baseUrl).port }
    const file = fixtureFile(fixtures())

    const seeded = await runCli(['sandbox', 'seed', file, '--json'], { env })
    expect(seeded.code).toBe(0)
    const ids = JSON.parse(seeded.stdout)
    expect(Object.keys(ids)).toEqual(NAMES)
    const link = (await server.api.call('GET', `/payment-links/${ids['inv-42']}`)).json.data
    expect(link).toMatchObject({ ...LINK, amount: 25.5, paid: true, _id: ids['inv-42'] })
    expect(link.payment_url).toBe(`${server.baseUrl}/checkout/pay?id=${ids['inv-42']}`)
    const sub = (await server.api.call('GET', `/subscriptions/${ids['ada-monthly']}`)).json.data
    expect(sub.status).toBe('cancel')
    // Only what trusting the server copied: its secret and its directory's key.
    expect(fs.readdirSync(localDir).sort()).toEqual([PROOF_FILE, SANDBOX_KEY_FILE])

    const once = await runCli(['sandbox', 'seed', file, '--once'], { env })
    expect(once.code).toBe(0)
    expect(once.stdout).toBe(rows(ids, () => 'skipped'))
    expect(once.stderr).toBe(
      `0 records seeded, 4 skipped (seeded before) (the sandbox at ${server.baseUrl}).\n`,
    )

    const invalid = await runCli(
      ['sandbox', 'seed', fixtureFile({ links: [{}, {}, { name: 'c', ...LINK, amount: 'x' }] }), '--json'],
      { env },
    )
    expect(invalid.code).toBe(3)
    expect(Object.keys(JSON.parse(invalid.stderr).error.errors)).toContain('links[2].amount')
    expect((await server.api.call('GET', '/payment-links')).json.data.total).toBe(2)

    // Past the server's 1 MiB body limit: said before anything is sent (a 413 otherwise), exit 2.
    const links = Array.from({ length: 12_000 }, (_, n) => ({ name: `l${n}`, ...LINK }))
    const bigFile = fixtureFile({ links })
    const bytes = Buffer.byteLength(JSON.stringify({ links }))
    const big = await runCli(['sandbox', 'seed', bigFile], { env })
    expect(big).toMatchObject({ code: 2, stdout: '' })
    expect(big.stderr).toBe(
      `Error: The fixtures in ${bigFile} are ${bytes.toLocaleString('en')} bytes as JSON: the sandbox at ` +
        `${server.baseUrl} takes at most 1,048,576 in one request. Nothing was seeded.\n` +
        'Split the file, or seed it as the sandbox starts: `pay sandbox start --seed FILE`.\n',
    )
    expect((await server.api.call('GET', '/payment-links')).json.data.total).toBe(2)
  })
})

describe('pay sandbox start --seed', () => {
  test('seeds before listening: the first request sees the records; --once on a restart skips them', async () => {
    const dir = tempDir('pay-server-store-')
    const file = fixtureFile(fixtures())
    const server = await startServer(dir, ['--seed', file])
    const ids = server.line.seeded
    expect(Object.keys(ids)).toEqual(NAMES)
    expect(server.stderr()).toContain(`4 records seeded from ${file}.`)
    const link = (await server.api.call('GET', `/payment-links/${ids['inv-42']}`)).json.data
    expect(link).toMatchObject({ ...LINK, amount: 25.5, paid: true })
    server.child.kill('SIGTERM')
    await new Promise((resolve) => server.child.once('exit', resolve))

    const restarted = await startServer(dir, ['--seed', file, '--once'])
    expect(restarted.line.seeded).toEqual(ids)
    expect((await restarted.api.call('GET', '/payment-links')).json.data.total).toBe(2)
  })

  test('an invalid file: exit 3 before anything listens', async () => {
    const dir = tempDir('pay-server-store-')
    const file = fixtureFile({ links: [{ name: 'a', ...LINK }, {}, { name: 'c', ...LINK, amount: 'x' }] })
    const started = await runCli(['sandbox', 'start', '--port', '0', '--seed', file], {
      env: cleanEnv({ PAY_SANDBOX_DIR: dir }),
    })
    expect(started.code).toBe(3)
    expect(started.stdout).toBe('')
    expect(started.stderr).toBe(
      `Error: The fixtures in ${file} are invalid: nothing was seeded.\n` +
        '  links[1].name      The name field is required.\n' +
        '  links[1].currency  The currency field is required.\n' +
        '  links[1].email     The email field is required.\n' +
        '  links[1].amount    The amount field is required.\n' +
        '  links[1].title     The title field is required.\n' +
        '  links[2].amount    The amount must be a number.\n',
    )
    // Nothing listened, nothing was kept.
    expect(fs.existsSync(path.join(dir, 'store.db')) ? (localRecords(dir)?.payment_links ?? {}) : {}).toEqual(
      {},
    )
    const notJson = await runCli(['sandbox', 'start', '--port', '0', '--seed', fixtureFile('{')], {
      env: cleanEnv({ PAY_SANDBOX_DIR: dir }),
    })
    expect(notJson.code).toBe(2)
  })
})
