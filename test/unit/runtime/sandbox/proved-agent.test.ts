import http from 'node:http'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { UNPROVEN_CONNECTION } from '../../../../src/api/failures.js'
import { provedAgent } from '../../../../src/runtime/sandbox/proved-agent.js'
import { clientSecret, endpointOf, proofOf } from '../../../../src/sandbox/http/proof.js'
import { startSandbox } from '../../../../src/sandbox/http/server.js'
import { KEY_A, tempDir } from '../../../helpers/sandbox.js'

/**
 * The agent of a command's requests to the user's sandbox: every new connection proves, on that
 * very connection, that it reaches the sandbox of the user's PAY_SANDBOX_DIR before a request
 * (and its key) is written to it. pay's commands against a sandbox that stops and a squatter that
 * takes its port: test/commands/links/wait.test.ts, test/commands/subs/cancel.test.ts.
 */

const closing: (() => Promise<unknown>)[] = []
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()))
})

/** A GET through `agent`: its status and body, or the error code the request failed with. */
function get(agent: http.Agent, baseUrl: string, path: string): Promise<{ status?: number; code?: string }> {
  return new Promise((resolve) => {
    const request = http.get(
      `${baseUrl}${path}`,
      { agent, headers: { Authorization: `Bearer ${KEY_A}` } },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode }))
      },
    )
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code }))
  })
}

/** A raw server on `port`: each connection gets `answer(challenge, endpoint)` for its first request, and is recorded. */
async function rawServer(answer: (challenge: string, endpoint: string) => string) {
  const received: string[] = []
  const server = net.createServer((socket) => {
    let text = ''
    socket.on('data', (chunk) => {
      text += chunk
      if (!text.includes('\r\n\r\n')) return
      received.push(text)
      const challenge = /challenge=([0-9a-f]{64})/.exec(text)?.[1] ?? ''
      socket.write(answer(challenge, endpointOf(socket.localAddress, socket.localPort)))
      text = ''
    })
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  closing.push(() => new Promise((resolve) => server.close(resolve)))
  return { baseUrl: `http://127.0.0.1:${port}`, received }
}

const healthAnswer = (body: string, extra = '', headers = '') =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pay-Sandbox: 1\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}${extra}`

describe('provedAgent', () => {
  it('against the user’s sandbox: one proof per connection, then requests with the key on it', async () => {
    const dir = tempDir('pay-proved-')
    const log: string[] = []
    const sandbox = await startSandbox({
      dir,
      port: 0,
      keys: [KEY_A],
      onRequest: (r) => log.push(`${r.method} ${r.path}`),
    })
    closing.push(() => sandbox.close())
    const agent = (await provedAgent(sandbox.baseUrl, dir)) as http.Agent
    for (let i = 0; i < 5; i++)
      expect(await get(agent, sandbox.baseUrl, '/payment-links')).toEqual({ status: 200 })
    // One connection, kept alive: proved once, then used for every request.
    await expect.poll(() => log.length).toBe(6)
    expect(log.map((line) => line.replace(/=[0-9a-f]{64}$/, '=[REDACTED]'))).toEqual([
      'GET /_sandbox/health?challenge=[REDACTED]',
      ...Array(5).fill('GET /payment-links'),
    ])
    agent.destroy()
  })

  it('refuses a connection whose answer is not exactly a sandbox’s proof; the server never sees the request', async () => {
    const dir = tempDir('pay-proved-')
    // The user's secret, so that a right proof can be made and spoilt one way at a time.
    await (await startSandbox({ dir, port: 0 })).close()
    const secret = clientSecret(dir) as Buffer
    const right = (challenge: string, endpoint: string) =>
      JSON.stringify({ service: 'pay-sandbox', proof: proofOf(secret, challenge, endpoint) })
    const spoilt: [string, (challenge: string, endpoint: string) => string][] = [
      ['a proof of another endpoint', (c) => healthAnswer(right(c, '127.0.0.1:1'))],
      ['no X-Pay-Sandbox', (c, e) => healthAnswer(right(c, e)).replace('X-Pay-Sandbox: 1\r\n', '')],
      ['bytes after the answer', (c, e) => healthAnswer(right(c, e), 'HTTP/1.1 200 OK\r\n')],
      ['Connection: close', (c, e) => healthAnswer(right(c, e), '', 'Connection: close\r\n')],
      ['another status', (c, e) => healthAnswer(right(c, e)).replace('200 OK', '404 Not Found')],
      ['a plain web server', () => 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'],
    ]
    for (const [what, answer] of spoilt) {
      const server = await rawServer(answer)
      const agent = (await provedAgent(server.baseUrl, dir)) as http.Agent
      expect([what, await get(agent, server.baseUrl, '/payment-links')]).toEqual([
        what,
        { code: UNPROVEN_CONNECTION },
      ])
      expect(server.received.map((text) => text.split('\r\n')[0].replace(/=[0-9a-f]{64}/, '=C'))).toEqual([
        'GET /_sandbox/health?challenge=C HTTP/1.1',
      ])
      expect(server.received.join('')).not.toContain(KEY_A)
      agent.destroy()
    }
    // The same server answering right is used: the check is not merely refusing.
    const good = await rawServer((c, e) => healthAnswer(right(c, e)))
    const agent = (await provedAgent(good.baseUrl, dir)) as http.Agent
    const request = get(agent, good.baseUrl, '/payment-links')
    await expect.poll(() => good.received.length).toBe(2)
    expect(good.received[1]).toContain(`Authorization: Bearer ${KEY_A}`)
    agent.destroy()
    await request
  })

  it('is not made without a secret of the directory to check with', async () => {
    expect(await provedAgent('http://127.0.0.1:4010', tempDir('pay-no-secret-'))).toBeUndefined()
  })
})
