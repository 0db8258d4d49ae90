import { describe, expect, test } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { createLocal, localLink } from '../../helpers/local-store.js'
import { NOTHING_LISTENS, startReceiver } from '../../helpers/receiver.js'

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

describe('pay sandbox pay', () => {
  test('with no server at the built-in profile’s address: the local store, said so; the current profile is not used', async () => {
    const localDir = tempDir('pay-local-store-')
    const configDir = tempDir('pay-config-')
    const env = { PAY_SANDBOX_DIR: localDir, PAY_SANDBOX_PORT: '1', PAY_CONFIG_DIR: configDir }
    // A live profile is current: `sandbox pay` still acts on the sandbox, never on it.
    const live = await runInProcess(
      ['login', '-p', 'live', '--base-url', 'https://api.pay.example', '--with-key', '--no-verify'],
      {
        env,
        input: 'sk_live_not_a_real_key_0000\n',
      },
    )
    expect(live.code).toBe(0)
    const link = await createLocal(localDir, runInProcess)
    const paid = await runInProcess(['sandbox', 'pay', link._id], { env })
    expect(paid.stderr).toBe(
      `Paid in the local sandbox store ${localDir} (no sandbox is running at http://127.0.0.1:1).\n`,
    )
    expect(paid.code).toBe(0)
    expect(paid.stdout).toContain('paid\ttrue\n')
    expect(localLink(localDir, link._id)?.paid).toBe(true)

    const missing = await runInProcess(['sandbox', 'pay', '000000000000000000000000'], { env })
    expect(missing).toMatchObject({ code: 5, stdout: '' })
    expect(missing.stderr).toBe(
      `Error: No payment link 000000000000000000000000 in the local sandbox store ${localDir}.\n` +
        'No sandbox is running at http://127.0.0.1:1; the local store was searched.\n',
    )
  })

  test('another base URL without a sandbox is an error, never the local store', async () => {
    const localDir = tempDir('pay-local-store-')
    const link = await createLocal(localDir, runInProcess)
    const env = { PAY_SANDBOX_DIR: localDir, PAY_SANDBOX_PORT: '1' }
    const hint =
      '`pay sandbox pay` acts only on a sandbox: start one there with `pay sandbox start`, or use `-p sandbox` (without --base-url) for the local sandbox store.\n'

    const nothing = await runInProcess(['sandbox', 'pay', link._id, '--base-url', 'http://127.0.0.1:1'], {
      env,
    })
    expect(nothing).toMatchObject({ code: 6, stdout: '' })
    expect(nothing.stderr).toBe(
      `Error: No pay sandbox answers at http://127.0.0.1:1 (profile "sandbox").\n${hint}`,
    )

    const other: FakeServer = await startFakeServer((_, res) => sendJson(res, 404, { message: 'Not Found' }))
    try {
      const notSandbox = await runInProcess(['sandbox', 'pay', link._id, '--base-url', other.baseUrl], {
        env,
      })
      expect(notSandbox).toMatchObject({ code: 1, stdout: '' })
      expect(notSandbox.stderr).toBe(
        `Error: ${other.baseUrl} (profile "sandbox") is not a pay sandbox.\n${hint}`,
      )
      // It was asked only for the sandbox's health (and a proof), without a key.
      expect(
        other.requests.map((r) => [
          r.method,
          r.path.replace(/=[0-9a-f]{64}$/, '=C'),
          r.headers.authorization,
        ]),
      ).toEqual([['GET', '/_sandbox/health?challenge=C', undefined]])
    } finally {
      await other.close()
    }
    const plain = await runInProcess(['sandbox', 'pay', link._id, '--base-url', 'http://pay.example'], {
      env,
    })
    expect(plain.code).toBe(2)
    expect(localLink(localDir, link._id)?.paid).toBe(false)
  })
})

test('with no server, each notification’s first attempt is made before it exits; what is left waits in the outbox, said so', async () => {
  const dir = tempDir('pay-local-store-')
  const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
  const answering = await startReceiver()
  try {
    for (const url of [answering.url, NOTHING_LISTENS])
      await runInProcess(['sandbox', 'webhooks', 'add', url], { env })
    const link = await createLocal(dir, runInProcess)
    const paid = await runInProcess(['sandbox', 'pay', link._id, '--json'], { env })
    expect(paid.code).toBe(0)
    expect(answering.notifications().map((n) => [n.data.payment_link_id, n.data.payment_status])).toEqual([
      [link._id, 1],
    ])
    const deliveries = JSON.parse(
      (await runInProcess(['sandbox', 'webhooks', 'deliveries', '--json'], { env })).stdout,
    )
    const waiting = deliveries.find((d: { url: string }) => d.url === NOTHING_LISTENS)
    expect(waiting).toMatchObject({ state: 'pending', attempts: [{ status: null }] })
    expect(paid.stderr.split('\n').sort()).toEqual(
      [
        '',
        `Notified ${answering.url}: answered 200.`,
        `Notified ${NOTHING_LISTENS}: connection refused (ECONNREFUSED). Delivery ${waiting._id} waits in the outbox ` +
          `of ${dir} for the next sandbox on it (\`pay sandbox start\`), which retries it.`,
      ].sort(),
    )
    // Cancelling is no payment attempt: nothing more is sent.
    const other = await createLocal(dir, runInProcess)
    await runInProcess(['sandbox', 'pay', other._id, '--outcome', 'cancelled'], { env })
    expect(answering.received).toHaveLength(1)
  } finally {
    await answering.close()
  }
})

test('a command running the sandbox in-process makes the first attempt of what it notifies before it ends, and says so', async () => {
  const dir = tempDir('pay-local-store-')
  const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
  const answering = await startReceiver()
  try {
    await runInProcess(['sandbox', 'webhooks', 'add', answering.url], { env })
    const link = await createLocal(dir, runInProcess)
    const paid = await runInProcess(
      ['-p', 'sandbox', 'api', '-X', 'POST', `/_sandbox/payment-links/${link._id}/pay`],
      {
        env,
      },
    )
    expect(paid.code).toBe(0)
    expect(JSON.parse(paid.stdout).data.paid).toBe(true)
    expect(answering.notifications().map((n) => n.data.payment_link_id)).toEqual([link._id])
    // After what it says of the page address it printed, which nothing serves.
    expect(paid.stderr.split('\n').slice(1)).toEqual([`Notified ${answering.url}: answered 200.`, ''])
  } finally {
    await answering.close()
  }
})

test('their help says where --profile and --base-url lead, as they are used', async () => {
  for (const command of ['pay', 'reset']) {
    const help = await runInProcess(['sandbox', command, '--help'])
    expect(help.code).toBe(0)
    const flat = help.stdout.replace(/\s+/g, ' ')
    expect(flat).toContain(
      '-p, --profile=<value> Profile whose sandbox server to act through (default: $PAY_PROFILE, then the built-in `sandbox`, never the current profile).',
    )
    expect(flat).toContain(
      '--base-url=<value> Base URL of the sandbox server to act through (default: $PAY_BASE_URL, then the profile). Without one running there, only the built-in profile falls back to the local store.',
    )
  }
})

test('--outcome pending: notified with payment_status 2, the link unpaid and payable; a later payment is notified 1', async () => {
  const dir = tempDir('pay-local-store-')
  const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
  const answering = await startReceiver()
  try {
    await runInProcess(['sandbox', 'webhooks', 'add', answering.url], { env })
    const link = await createLocal(dir, runInProcess)
    const pending = await runInProcess(['sandbox', 'pay', link._id, '--outcome', 'pending'], { env })
    expect(pending.code).toBe(0)
    expect(pending.stderr).toBe(
      `Left pending in the local sandbox store ${dir} (no sandbox is running at http://127.0.0.1:1): payment link ${link._id} stays unpaid, and payable.\n` +
        "It has no redirect_url: the customer would see the sandbox's page saying so.\n" +
        `Notified ${answering.url}: answered 200.\n`,
    )
    expect(pending.stdout).toContain('paid\tfalse\n')
    expect(localLink(dir, link._id)?.paid).toBe(false)
    const paid = await runInProcess(['sandbox', 'pay', link._id, '--json'], { env })
    expect(JSON.parse(paid.stdout)).toMatchObject({ outcome: 'paid', link: { paid: true } })
    expect(answering.notifications().map((n) => [n.data.payment_status, n.data.payment_message])).toEqual([
      [2, 'Payment pending'],
      [1, 'Payment successful'],
    ])
  } finally {
    await answering.close()
  }
})

test('a mistyped --outcome: exit 2, the outcome it most likely meant, nothing paid', async () => {
  const dir = tempDir('pay-local-store-')
  const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
  const link = await createLocal(dir, runInProcess)
  const [typo, far] = await Promise.all([
    runInProcess(['sandbox', 'pay', link._id, '--outcome', 'payd'], { env }),
    runInProcess(['sandbox', 'pay', link._id, '--outcome', 'refund'], { env }),
  ])
  expect(typo).toMatchObject({
    code: 2,
    stdout: '',
    stderr:
      'Error: Expected --outcome=payd to be one of: paid, pending, cancelled, failed\n' +
      'Did you mean --outcome=paid? See `pay sandbox pay --help`.\n',
  })
  expect(far).toMatchObject({
    code: 2,
    stdout: '',
    stderr:
      'Error: Expected --outcome=refund to be one of: paid, pending, cancelled, failed\n' +
      'See `pay sandbox pay --help`.\n',
  })
  expect(localLink(dir, link._id)?.paid).toBe(false)
})
