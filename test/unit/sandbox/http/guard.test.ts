import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Addresses } from '../../../../src/sandbox/http/guard.js'
import { startSandbox } from '../../../../src/sandbox/http/server.js'
import { formFields } from '../../../helpers/pages.js'
import {
  clientFor,
  KEY_A,
  rawRequest,
  startTestSandbox,
  storeText,
  type TestSandbox,
  tempDir,
  VALID_LINK,
} from '../../../helpers/sandbox.js'

/**
 * What the sandbox checks before any route runs: a request must name
 * the sandbox in its Host (DNS rebinding: a page of `rebind.test` resolved to 127.0.0.1 sends
 * `Host: rebind.test:PORT`), an API request from a web page of another origin is refused, and no
 * number of idle or slow connections stops it answering. Chromium tries the same in
 * test/e2e/sandbox/rebinding.test.ts.
 */

let t: TestSandbox
let port: number
let link: { _id: string; payment_url: string }
beforeAll(async () => {
  t = await startTestSandbox()
  port = Number(new URL(t.baseUrl).port)
  link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
})
afterAll(() => t.close())

const auth = { Authorization: `Bearer ${KEY_A}` }
const json = { ...auth, 'Content-Type': 'application/json' }

describe('the Host a request names (DNS rebinding)', () => {
  it('answers 421 to every route under another name, before anything runs: JSON for the API, a page for /checkout/', async () => {
    const page = await rawRequest(t.baseUrl, { path: `/checkout/pay?id=${link._id}` })
    const form = formFields(page.text)
    const before = storeText(t.dir)
    const rebound = `rebind.test:${port}`
    const requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[] = [
      { method: 'GET', path: '/_sandbox/health' },
      { method: 'GET', path: '/payment-links', headers: auth },
      { method: 'GET', path: `/payment-links/${link._id}`, headers: auth },
      { method: 'POST', path: '/payment-links', headers: json, body: JSON.stringify(VALID_LINK) },
      { method: 'DELETE', path: `/payment-links/${link._id}`, headers: auth },
      { method: 'POST', path: `/_sandbox/payment-links/${link._id}/pay`, headers: auth },
      { method: 'POST', path: '/_sandbox/reset', headers: auth },
      { method: 'GET', path: '/nowhere' },
    ]
    const message = `Misdirected request: this sandbox answers only requests addressed to it as 127.0.0.1, localhost or [::1], port ${port}.`
    for (const request of requests) {
      const answer = await rawRequest(t.baseUrl, {
        ...request,
        headers: { ...request.headers, Host: rebound },
      })
      expect([request.method, request.path, answer.status, answer.headers['content-type']]).toEqual([
        request.method,
        request.path,
        421,
        'application/json',
      ])
      expect(JSON.parse(answer.text)).toEqual({ message })
      expect(answer.headers.connection).toBe('close')
    }
    // The customer pages: a short page, and the form (with a valid page token) pays nothing.
    const pages = [
      { method: 'GET', path: `/checkout/pay?id=${link._id}` },
      {
        method: 'POST',
        path: `/checkout/pay?id=${link._id}`,
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: `http://${rebound}`,
          'Sec-Fetch-Site': 'same-origin',
        },
        body: new URLSearchParams(form).toString(),
      },
      { method: 'GET', path: '/checkout/tokens/x/activate' },
    ]
    for (const request of pages) {
      const answer = await rawRequest(t.baseUrl, {
        ...request,
        headers: { ...request.headers, Host: rebound },
      })
      expect([request.method, answer.status, answer.headers['content-type']]).toEqual([
        request.method,
        421,
        'text/html; charset=utf-8',
      ])
      expect(answer.text).toContain('<title>Wrong address</title>')
      expect(answer.text).toContain(
        `The sandbox answers only as 127.0.0.1, localhost or [::1], port ${port}.`,
      )
      expect(answer.text).not.toContain('rebind.test')
      expect(answer.text).not.toContain(link._id)
      expect(answer.headers['content-security-policy']).toMatch(/^default-src 'none';/)
    }
    expect(storeText(t.dir)).toBe(before)
  })

  it('accepts its loopback names with its own port, in any case; refuses every other name, port or form', async () => {
    const status = async (host: string | undefined) =>
      (
        await rawRequest(t.baseUrl, {
          path: '/_sandbox/health',
          headers: host === undefined ? {} : { Host: host },
        })
      ).status
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect([host, await status(host)]).toEqual([host, 200])
    }
    for (const host of [
      `rebind.test:${port}`,
      `localhost.:${port}`,
      `127.0.0.2:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `evil.example/<script>:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      'localhost',
      `127.0.0.1:${port}@evil.example`,
    ]) {
      expect([host, await status(host)]).toEqual([host, 421])
    }
  })

  it('refuses a request with no Host at all (HTTP/1.0)', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write('GET /_sandbox/health HTTP/1.0\r\n\r\n'),
      )
      let text = ''
      socket.setEncoding('utf8').on('data', (chunk) => {
        text += chunk
      })
      socket.on('end', () => resolve(text))
      socket.on('error', reject)
    })
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 421 Misdirected Request')
  })

  it('refuses a request with two Host lines, whichever comes first', async () => {
    for (const hosts of [
      [`127.0.0.1:${port}`, `rebind.test:${port}`],
      [`rebind.test:${port}`, `127.0.0.1:${port}`],
    ]) {
      const raw = `GET /_sandbox/health HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join('')}Connection: close\r\n\r\n`
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(raw))
        let text = ''
        socket.setEncoding('utf8').on('data', (chunk) => {
          text += chunk
        })
        socket.on('end', () => resolve(text))
        socket.on('error', reject)
      })
      expect([hosts, answer.split('\r\n')[0]]).toEqual([hosts, 'HTTP/1.1 421 Misdirected Request'])
    }
  })

  it('builds payment_url and activation_url only from a Host it accepts', async () => {
    const created = await rawRequest(t.baseUrl, {
      method: 'POST',
      path: '/payment-links',
      headers: { ...json, Host: `LocalHost:${port}` },
      body: JSON.stringify(VALID_LINK),
    })
    const made = JSON.parse(created.text).data
    expect(made.payment_url).toBe(`http://localhost:${port}/checkout/pay?id=${made._id}`)
    const refused = await rawRequest(t.baseUrl, {
      method: 'POST',
      path: '/tokenizations/create-token',
      headers: { ...json, Host: `rebind.test:${port}` },
      body: JSON.stringify({ email: 'a@example.com', title: 'T', description: 'D' }),
    })
    expect(refused.status).toBe(421)
    expect(refused.text).not.toContain('rebind.test')
  })
})

describe('the web Origin of an API request', () => {
  it('refuses 403 an API request a page of another origin sent; nothing is done', async () => {
    const before = storeText(t.dir)
    for (const origin of [
      'http://evil.example',
      'null',
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${port + 1}`,
      `http://rebind.test:${port}`,
      'not a url',
    ]) {
      for (const request of [
        { method: 'POST', path: '/payment-links', headers: json, body: JSON.stringify(VALID_LINK) },
        { method: 'POST', path: '/_sandbox/reset', headers: auth },
        { method: 'GET', path: '/payment-links', headers: auth },
      ]) {
        const answer = await rawRequest(t.baseUrl, {
          ...request,
          headers: { ...request.headers, Origin: origin },
        })
        expect([origin, request.path, answer.status]).toEqual([origin, request.path, 403])
        expect(JSON.parse(answer.text)).toEqual({
          message: 'This sandbox does not answer API requests from web pages of another origin.',
        })
      }
    }
    expect(storeText(t.dir)).toBe(before)
  })

  it('answers an Origin of its own, and a page of another origin may still show a customer page', async () => {
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const answer = await rawRequest(t.baseUrl, {
        path: '/payment-links',
        headers: { ...auth, Origin: origin },
      })
      expect([origin, answer.status]).toEqual([origin, 200])
    }
    // A shop's page links to the payment page: a GET from another origin shows it.
    const page = await rawRequest(t.baseUrl, {
      path: `/checkout/pay?id=${link._id}`,
      headers: { Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' },
    })
    expect(page.status).toBe(200)
  })
})

describe('Addresses', () => {
  it('takes the --host it was started with; an address of every interface takes this machine’s own', () => {
    const lan = new Addresses('192.168.7.9', 4010)
    expect(lan.allowedHost('192.168.7.9:4010')).toBe('192.168.7.9:4010')
    expect(lan.allowedHost('127.0.0.1:4010')).toBe('127.0.0.1:4010')
    expect(lan.allowedHost('192.168.7.10:4010')).toBeUndefined()
    expect(lan.allowedOrigin('http://192.168.7.9:4010')).toBe(true)
    expect(new Addresses('::1', 80).allowedHost('[::1]')).toBe('[::1]:80')
    expect(new Addresses('127.0.0.1', 80).allowedOrigin('http://localhost')).toBe(true)
    const any = new Addresses('0.0.0.0', 4010)
    expect(any.allowedHost('127.0.0.1:4010')).toBe('127.0.0.1:4010')
    expect(any.allowedHost('rebind.test:4010')).toBeUndefined()
  })
})

describe('bodies and connections', () => {
  it('a 100,000-deep JSON body with an Idempotency-Key answers 400, not 500, and the server goes on', async () => {
    const deep = `{"title": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    for (const headers of [{ ...json, 'Idempotency-Key': 'deep-1' }, json]) {
      const answer = await rawRequest(t.baseUrl, {
        method: 'POST',
        path: '/payment-links',
        headers,
        body: deep,
      })
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.text)).toEqual({
        message: 'The JSON body is nested more than 64 levels deep.',
      })
    }
    expect(
      (await t.a.call('POST', '/payment-links', VALID_LINK, { 'Idempotency-Key': 'deep-1' })).status,
    ).toBe(200)
  })

  /** Opens `count` connections that send nothing; resolves with them once all are connected. */
  async function idleSockets(
    count: number,
    target: number,
  ): Promise<{ sockets: net.Socket[]; closed: () => number }> {
    let closed = 0
    const sockets = await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect(target, '127.0.0.1', () => resolve(socket))
            socket.resume()
            socket.on('error', () => {})
            socket.on('close', () => {
              closed++
            })
            socket.once('error', reject)
          }),
      ),
    )
    return { sockets, closed: () => closed }
  }

  async function until(what: string, done: () => boolean): Promise<void> {
    const deadline = Date.now() + 15_000
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`still waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  it('keeps at most its cap of connections: 300 idle sockets against a cap of 40 leave it answering', async () => {
    const capped = await startSandbox({ dir: tempDir('pay-cap-'), port: 0, limits: { maxConnections: 40 } })
    const target = Number(new URL(capped.baseUrl).port)
    try {
      const idle = await idleSockets(300, target)
      // Each connection past the cap closed the one idle the longest: 260 of them went.
      await until('the server to close the idle sockets past its cap', () => idle.closed() >= 260)
      const health = await fetch(`${capped.baseUrl}/_sandbox/health`)
      expect(health.status).toBe(200)
      expect(idle.sockets.filter((socket) => !socket.destroyed).length).toBeLessThanOrEqual(40)
      for (const socket of idle.sockets) socket.destroy()
    } finally {
      await capped.close()
    }
  })

  /**
   * Opens `count` connections, each sending `text` (a request, whole or not), forty at a time:
   * resolves once each has its first answer line, was closed, or was sent all and waited `settleMs`.
   */
  async function rawConnections(
    count: number,
    target: number,
    text: string,
    settleMs: number,
  ): Promise<{ sockets: net.Socket[]; statuses: (string | undefined)[]; closed: () => number }> {
    let closed = 0
    /** Each connection's first answer line as it comes (this array, kept up to date). */
    const statuses: (string | undefined)[] = new Array(count).fill(undefined)
    const sockets: net.Socket[] = []
    const one = (i: number) =>
      new Promise<void>((resolve) => {
        const socket = net.connect(target, '127.0.0.1', () => {
          socket.write(text)
          setTimeout(resolve, settleMs)
        })
        sockets[i] = socket
        let head = ''
        socket.setEncoding('utf8')
        socket.on('data', (chunk: string) => {
          head += chunk
          if (statuses[i] === undefined && head.includes('\r\n')) {
            statuses[i] = head.split('\r\n')[0]
            resolve()
          }
        })
        socket.on('error', () => {})
        socket.on('close', () => {
          closed++
          resolve()
        })
      })
    for (let from = 0; from < count; from += 40) {
      await Promise.all(Array.from({ length: Math.min(40, count - from) }, (_, j) => one(from + j)))
    }
    return { sockets, statuses, closed: () => closed }
  }

  const count = (statuses: (string | undefined)[]) =>
    Object.fromEntries(
      [...new Set(statuses)].map((status) => [String(status), statuses.filter((s) => s === status).length]),
    )

  it('520 keyless hangs are refused 401 at once, and 520 payment forms whose body never comes do not stop a normal request', async () => {
    const sandbox = await startSandbox({ dir: tempDir('pay-held-'), port: 0, keys: [KEY_A] })
    const target = Number(new URL(sandbox.baseUrl).port)
    const host = `127.0.0.1:${target}`
    const all: net.Socket[] = []
    const normal = async () => (await fetch(`${sandbox.baseUrl}/payment-links`, { headers: auth })).status
    try {
      // No key: the header is not honoured, and nothing is held.
      const keyless = await rawConnections(
        520,
        target,
        `GET /payment-links HTTP/1.1\r\nHost: ${host}\r\nPay-Sandbox-Fault: hang\r\n\r\n`,
        5_000,
      )
      all.push(...keyless.sockets)
      expect(count(keyless.statuses)).toEqual({ 'HTTP/1.1 401 Unauthorized': 520 })
      const refused = await rawRequest(sandbox.baseUrl, {
        path: '/payment-links',
        headers: { 'Pay-Sandbox-Fault': 'hang' },
      })
      expect([refused.status, JSON.parse(refused.text)]).toEqual([
        401,
        {
          message:
            "Unauthenticated: the Pay-Sandbox-Fault header is honoured only with one of the sandbox's API keys.",
        },
      ])
      expect(await normal()).toBe(200)

      // A customer page's form whose body never arrives: each holds its connection until pushed out.
      const link = (await clientFor(sandbox.baseUrl).call('POST', '/payment-links', VALID_LINK)).json.data
      const slow = await rawConnections(
        520,
        target,
        `POST /checkout/pay?id=${link._id} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\namount=`,
        50,
      )
      all.push(...slow.sockets)
      expect(await normal()).toBe(200)
      // Past the cap, the connections waiting the longest (the 401s' kept alive, then forms) were closed.
      await until(
        'the connections past the cap to close',
        () => keyless.closed() + slow.closed() >= 520 + 520 - 512,
      )
      expect(await normal()).toBe(200)
    } finally {
      for (const socket of all) socket.destroy()
      await sandbox.close()
    }
  })

  it('520 keyed hangs: at most 128 held at once, every other answered 503 at once; a normal request still answered', async () => {
    const sandbox = await startSandbox({ dir: tempDir('pay-held-keyed-'), port: 0, keys: [KEY_A] })
    const target = Number(new URL(sandbox.baseUrl).port)
    let keyed: Awaited<ReturnType<typeof rawConnections>> | undefined
    try {
      keyed = await rawConnections(
        520,
        target,
        `GET /payment-links HTTP/1.1\r\nHost: 127.0.0.1:${target}\r\nAuthorization: Bearer ${KEY_A}\r\nPay-Sandbox-Fault: hang\r\n\r\n`,
        200,
      )
      const { statuses, sockets } = keyed
      // Those still open without an answer are the held ones: never more than 128.
      const held = () => sockets.filter((socket, i) => !socket.destroyed && statuses[i] === undefined).length
      await until('every request past the 128 held to be answered', () => held() <= 128)
      expect(count(statuses.filter((status) => status !== undefined))).toEqual({
        'HTTP/1.1 503 Service Unavailable': statuses.filter((status) => status !== undefined).length,
      })
      expect(statuses.filter((status) => status !== undefined).length).toBeGreaterThanOrEqual(520 - 128 - 8)
      expect((await fetch(`${sandbox.baseUrl}/payment-links`, { headers: auth })).status).toBe(200)
      expect(held()).toBeLessThanOrEqual(128)
    } finally {
      for (const socket of keyed?.sockets ?? []) socket.destroy()
      await sandbox.close()
    }
  })

  it('holds at most maxHeldRequests requests for faults at once: the next is answered 503 at once, saying why', async () => {
    const sandbox = await startSandbox({
      dir: tempDir('pay-held-cap-'),
      port: 0,
      keys: [KEY_A],
      limits: { maxHeldRequests: 2 },
    })
    const target = Number(new URL(sandbox.baseUrl).port)
    const host = `127.0.0.1:${target}`
    const hang = `GET /payment-links HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY_A}\r\nPay-Sandbox-Fault: hang\r\n\r\n`
    const held = await rawConnections(2, target, hang, 300)
    try {
      expect(held.statuses).toEqual([undefined, undefined])
      const busy = await rawRequest(sandbox.baseUrl, {
        path: '/payment-links',
        headers: { ...auth, 'Pay-Sandbox-Fault': 'latency=5s' },
      })
      expect([busy.status, busy.headers['retry-after'], JSON.parse(busy.text)]).toEqual([
        503,
        '1',
        {
          message:
            "Service Unavailable: the pay sandbox holds 2 requests for faults already, so this one's fault [latency=5s (header)] was not held; nothing was done.",
        },
      ])
      // One let go, one more is held again.
      held.sockets[0].destroy()
      await until('the held request to end', () => held.closed() === 1)
      const again = await rawConnections(1, target, hang, 300)
      expect(again.statuses).toEqual([undefined])
      again.sockets[0].destroy()
    } finally {
      for (const socket of held.sockets) socket.destroy()
      await sandbox.close()
    }
  })

  it('closes a connection that sends nothing, or headers too slowly, once its headers timeout is past', async () => {
    const strict = await startSandbox({
      dir: tempDir('pay-slow-'),
      port: 0,
      limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
    })
    const target = Number(new URL(strict.baseUrl).port)
    try {
      const { sockets, closed } = await idleSockets(2, target)
      sockets[1].write('GET /_sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\n') // never finished
      await until('the server to close the silent and the slow connection', () => closed() === 2)
      expect((await fetch(`${strict.baseUrl}/_sandbox/health`)).status).toBe(200)
    } finally {
      await strict.close()
    }
  })
})
