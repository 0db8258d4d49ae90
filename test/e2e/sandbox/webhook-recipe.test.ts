import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, test } from 'vitest'
import { BIN, cleanEnv, ROOT, tempDir } from '../../helpers/cli.js'

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
    "// shop.mjs: a shop's webhook handler, checking each notification as the service's plugins do",
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
