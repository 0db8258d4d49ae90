import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, test, vi } from 'vitest'
import { BIN, cleanEnv, ROOT, tempDir } from '../../helpers/cli.js'
import { NOTIFICATION_KEY, sandboxNotification } from '../../helpers/notification-fixture.js'

/**
 * The recipe of docs/sandbox-test-double.md, "Notifications", read from the guide and run as
 * written: its shop (`shop.mjs`, node:crypto alone) saved in a directory of its own, its script
 * run by bash with `pay` on the PATH and a sandbox directory of its own.
 */

function recipe(): { shop: string; script: string } {
  const guide = fs.readFileSync(path.join(ROOT, 'docs/sandbox-test-double.md'), 'utf8')
  const start = guide.indexOf('\n## Notifications\n')
  expect(start).toBeGreaterThan(-1)
  const section = guide.slice(start, guide.indexOf('\n## ', start + 1))
  const [shop] = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1])
  const [script] = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1])
  expect(shop.split('\n')[0]).toBe(
    "// shop.mjs: a shop's webhook handler, checking each notification as the service's plugins do, and strictly",
  )
  return { shop, script }
}

test('the webhook recipe, as written: paid once, a duplicate paid once, the shop down then paid on the retry', async () => {
  const { shop, script } = recipe()
  // The shop imports nothing but node's own crypto, http and fs.
  expect([...shop.matchAll(/^import .* from '([^']+)'$/gm)].map((match) => match[1])).toEqual([
    'node:crypto',
    'node:fs',
    'node:http',
  ])
  const cwd = tempDir('pay-webhook-recipe-')
  fs.writeFileSync(path.join(cwd, 'shop.mjs'), shop)
  const bin = tempDir('pay-webhook-recipe-bin-')
  fs.writeFileSync(path.join(bin, 'pay'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
    mode: 0o755,
  })
  const env = cleanEnv({ PATH: `${bin}${path.delimiter}${process.env.PATH}` })
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, detached: true })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk
  })
  const timer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 90_000)
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearTimeout(timer)
  expect({ code, stdout }).toEqual({
    code: 0,
    stdout: [
      'order 7: paid, 1 notification, 1 payment',
      'order 8: paid, 2 notifications, 1 payment',
      'order 9: paid, 1 notification, 1 payment',
      '["delivered",[503,200]]',
      '',
    ].join('\n'),
  })
  const baseUrl = JSON.parse(fs.readFileSync(path.join(cwd, 'sandbox.json'), 'utf8')).base_url
  const shopUrl = fs.readFileSync(path.join(cwd, 'shop.url'), 'utf8')
  expect(stderr.split('\n')).toEqual([
    expect.stringMatching(
      new RegExp(
        `^Payment attempts are notified to ${shopUrl}/webhooks/pay \\(endpoint [0-9a-f]{24}\\) by the sandbox at ${baseUrl}\\.$`,
      ),
    ),
    ...[7, 8, 9].map(() => `Paid through the sandbox at ${baseUrl}.`),
    '',
  ])
})

test('the recipe’s shop, as written, survives whatever reaches it: 400 for what is not a notification, 401 for a wrong hash, forgeries refused', async () => {
  const { shop } = recipe()
  const cwd = tempDir('pay-webhook-shop-')
  fs.writeFileSync(path.join(cwd, 'shop.mjs'), shop)
  const child = spawn(process.execPath, ['shop.mjs'], {
    cwd,
    env: cleanEnv({ SHOP_SIGNATURE_KEY: NOTIFICATION_KEY }),
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk
  })
  try {
    await vi.waitFor(() => expect(fs.readFileSync(path.join(cwd, 'shop.url'), 'utf8')).toMatch(/^http:/), {
      timeout: 10_000,
    })
    const url = fs.readFileSync(path.join(cwd, 'shop.url'), 'utf8')
    const post = async (body: string) => (await fetch(`${url}/webhooks/pay`, { method: 'POST', body })).status
    const order = async (id: string) => (await fetch(`${url}/orders/${id}`)).text()
    const paid = sandboxNotification({ title: 'Order 17', reference: '17' })
    const genuine = JSON.parse(paid)
    const { data } = genuine
    const { hash, ...values } = data
    const changed = (to: Record<string, unknown>) => JSON.stringify({ ...genuine, data: to })
    const missing = (name: string) => {
      const { [name]: _, ...rest } = data
      return changed(rest)
    }
    const stray = {
      'not JSON': '{"data": ',
      empty: '',
      null: 'null',
      'an array': '[]',
      'no data': '{}',
      'data not an object': '{"data": "x"}',
      'a hash of 64 non-ASCII characters': changed({ ...data, hash: 'é'.repeat(64) }),
      'a hash of 64 characters, not hex': changed({ ...data, hash: 'z'.repeat(64) }),
      'no hash': missing('hash'),
      'no attempt_id': missing('attempt_id'),
      'no payment_status': missing('payment_status'),
      'a new attempt_id (its last character moved into payment_id)': changed({
        ...data,
        attempt_id: data.attempt_id.slice(0, -1),
        payment_id: data.attempt_id.slice(-1) + data.payment_id,
      }),
      'reference "17" made "1", its 7 in a key of its own': changed({
        ...values,
        payment_link_reference: '1',
        x: '7',
        hash,
      }),
      'the amount as text': changed({ ...data, payment_amount: String(data.payment_amount) }),
    }
    const answers = Object.fromEntries(
      await Promise.all(Object.entries(stray).map(async ([what, body]) => [what, await post(body)])),
    )
    expect(answers).toEqual(Object.fromEntries(Object.keys(stray).map((what) => [what, 400])))
    // Well formed but not signed with the shop's key: 401.
    expect(await post(changed({ ...data, payment_amount: 2551 }))).toBe(401)
    expect(await order('17')).toBe('unpaid, 0 notifications, 0 payments\n')
    // The genuine one, after all that: taken, once per attempt.
    expect([await post(paid), await post(paid)]).toEqual([200, 200])
    expect(await order('17')).toBe('paid, 2 notifications, 1 payment\n')
    expect(child.exitCode).toBeNull()
    expect(stderr).toBe('')
  } finally {
    child.kill()
  }
})
