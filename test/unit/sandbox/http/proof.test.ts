import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { probeSandbox } from '../../../../src/runtime/sandbox/connection.js'
import { PROOF_FILE, proofOf } from '../../../../src/sandbox/http/proof.js'
import { type RunningSandbox, startSandbox } from '../../../../src/sandbox/http/server.js'
import { type FakeServer, sendJson, startFakeServer } from '../../../helpers/fake-server.js'
import { tempDir } from '../../../helpers/sandbox.js'

/**
 * How a sandbox proves it is the user's own: a secret in its directory, 0600 in
 * a 0700 directory, never through a link; an HMAC of pay's challenge, bound to its port. pay's
 * side (probeSandbox) tells the user's sandbox from one of another directory, an impostor that
 * copies the health answer, and a squatter that relays the challenge to the user's real sandbox.
 * What pay then sends, or not: test/e2e/sandbox/squatter.test.ts.
 */

const closing: { close(): Promise<void> }[] = []
afterEach(async () => {
  await Promise.all(closing.splice(0).map((server) => server.close()))
})

async function sandboxIn(dir: string): Promise<RunningSandbox> {
  const sandbox = await startSandbox({ dir, port: 0 })
  closing.push(sandbox)
  return sandbox
}

const CHALLENGE = 'ab'.repeat(32)

describe('the secret', () => {
  it('is made 0600 in a 0700 directory (tightened when looser), and the same across restarts', async () => {
    const dir = path.join(tempDir(), 'sandbox')
    fs.mkdirSync(dir, { mode: 0o755 })
    fs.chmodSync(dir, 0o755)
    const first = await sandboxIn(dir)
    const file = path.join(dir, PROOF_FILE)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/)
    const secret = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex')
    await first.close()
    const second = await sandboxIn(dir)
    const port = Number(new URL(second.baseUrl).port)
    const health = await fetch(`${second.baseUrl}/_sandbox/health?challenge=${CHALLENGE}`)
    // Bound to where the connection landed: the sandbox's address and port.
    expect(await health.json()).toEqual({
      service: 'pay-sandbox',
      proof: proofOf(secret, CHALLENGE, `127.0.0.1:${port}`),
    })
    // Left over from a secret being written: nothing but the secret and the store.
    expect(fs.readdirSync(dir).filter((name) => name.startsWith(PROOF_FILE))).toEqual([PROOF_FILE])
  })

  it('a link planted at its name is refused, never followed, and its target untouched', async () => {
    const dir = tempDir()
    const target = path.join(tempDir(), 'victim.txt')
    fs.writeFileSync(target, 'the victim file\n')
    fs.symlinkSync(target, path.join(dir, PROOF_FILE))
    await expect(startSandbox({ dir, port: 0 })).rejects.toThrow(
      `${path.join(dir, PROOF_FILE)} is a symbolic link: refused.`,
    )
    expect(fs.readFileSync(target, 'utf8')).toBe('the victim file\n')
    // Nor is a dangling one followed to create a file.
    const dangling = tempDir()
    const nowhere = path.join(tempDir(), 'created-through-link')
    fs.symlinkSync(nowhere, path.join(dangling, PROOF_FILE))
    await expect(startSandbox({ dir: dangling, port: 0 })).rejects.toThrow(
      /is a symbolic link: refused\. Remove it; the sandbox makes a new secret\.$/,
    )
    expect(fs.existsSync(nowhere)).toBe(false)
  })

  it('a secret other users may read is refused: the sandbox does not start on it', async () => {
    const dir = tempDir()
    await (await startSandbox({ dir, port: 0 })).close()
    fs.chmodSync(path.join(dir, PROOF_FILE), 0o644)
    await expect(startSandbox({ dir, port: 0 })).rejects.toThrow(
      `${path.join(dir, PROOF_FILE)} may be read by other users.`,
    )
  })
})

describe('the health route', () => {
  it('answers a challenge with a proof, and anything else without one', async () => {
    const sandbox = await sandboxIn(tempDir())
    for (const query of ['', '?challenge=', '?challenge=xyz', `?challenge=${CHALLENGE.toUpperCase()}`]) {
      const answer = await fetch(`${sandbox.baseUrl}/_sandbox/health${query}`)
      expect([query, answer.status, await answer.json()]).toEqual([query, 200, { service: 'pay-sandbox' }])
    }
  })
})

describe('probeSandbox (pay’s side)', () => {
  it('proven: the sandbox of pay’s own directory', async () => {
    const dir = tempDir()
    const sandbox = await sandboxIn(dir)
    expect(await probeSandbox(sandbox.baseUrl, { dir })).toBe('proven')
  })

  it('unproven: a sandbox of another directory, and one whose directory pay has never used', async () => {
    const sandbox = await sandboxIn(tempDir())
    const other = tempDir()
    await (await startSandbox({ dir: other, port: 0 })).close()
    expect(await probeSandbox(sandbox.baseUrl, { dir: other })).toBe('unproven')
    expect(await probeSandbox(sandbox.baseUrl, { dir: tempDir() })).toBe('unproven')
  })

  it('unproven: an impostor that answers like a sandbox, with or without a proof of its own', async () => {
    const dir = tempDir()
    await (await startSandbox({ dir, port: 0 })).close()
    for (const body of [{ service: 'pay-sandbox' }, { service: 'pay-sandbox', proof: 'f'.repeat(64) }]) {
      const impostor = await startFakeServer((_, res) => sendJson(res, 200, body, { 'x-pay-sandbox': '1' }))
      closing.push(impostor)
      expect(await probeSandbox(impostor.baseUrl, { dir })).toBe('unproven')
      expect(
        impostor.requests.map((r) => [
          r.method,
          r.path.replace(/[0-9a-f]{64}/, 'C'),
          r.headers.authorization,
        ]),
      ).toEqual([['GET', '/_sandbox/health?challenge=C', undefined]])
    }
  })

  it('unproven: a squatter that relays the challenge to the user’s real sandbox on another port', async () => {
    const dir = tempDir()
    const real = await sandboxIn(dir)
    const realPort = Number(new URL(real.baseUrl).port)
    const relayed: string[] = []
    const squatter: FakeServer = await startFakeServer(async (request, response) => {
      // It asks the real sandbox the very question pay asked it, and answers with its answer.
      const answer = await new Promise<{ status: number; body: string; sandbox: string }>((resolve) => {
        http.get(`${real.baseUrl}${request.path}`, (res) => {
          let body = ''
          res.setEncoding('utf8').on('data', (chunk) => {
            body += chunk
          })
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body, sandbox: String(res.headers['x-pay-sandbox']) }),
          )
        })
      })
      relayed.push(answer.body)
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        'x-pay-sandbox': answer.sandbox,
      })
      response.end(answer.body)
    })
    closing.push(squatter)
    expect(await probeSandbox(squatter.baseUrl, { dir })).toBe('unproven')
    // It did get a proof from the real sandbox, but one bound to the real sandbox's port.
    expect(JSON.parse(relayed[0]).proof).toMatch(/^[0-9a-f]{64}$/)
    expect(await probeSandbox(real.baseUrl, { dir })).toBe('proven')
    expect(realPort).not.toBe(Number(new URL(squatter.baseUrl).port))
  })

  it('unproven: a squatter on the same port of another loopback address, relaying to the user’s sandbox as 127.0.0.1', async () => {
    const dir = tempDir()
    // The squatter takes 127.0.0.1:P; the user's sandbox listens on 127.0.0.2:P, the same port.
    let target = ''
    const squatter = await startFakeServer(async (request, response) => {
      const answer = await new Promise<{ status: number; body: string }>((resolve) => {
        // It names the sandbox by a loopback name and the right port, which the sandbox accepts.
        http.get(`${target}${request.path}`, { headers: { host: new URL(squatterUrl).host } }, (res) => {
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
    closing.push(squatter)
    const squatterUrl = squatter.baseUrl
    const port = Number(new URL(squatterUrl).port)
    const real = await startSandbox({ dir, host: '127.0.0.2', port })
    closing.push(real)
    target = real.baseUrl
    const relayed = await fetch(`${real.baseUrl}/_sandbox/health?challenge=${CHALLENGE}`, {
      headers: { host: new URL(squatterUrl).host },
    })
    expect(relayed.status).toBe(200) // it does answer the relay: the proof is what gives it away
    expect(await probeSandbox(squatterUrl, { dir })).toBe('unproven')
    expect(await probeSandbox(real.baseUrl, { dir })).toBe('proven')
  })

  it('other: a server that is no sandbox; none: nothing listening', async () => {
    const plain = await startFakeServer((_, res) => sendJson(res, 200, { service: 'pay-sandbox' }))
    closing.push(plain)
    expect(await probeSandbox(plain.baseUrl, { dir: tempDir() })).toBe('other')
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    expect(await probeSandbox(`http://127.0.0.1:${port}`, { dir: tempDir() })).toBe('none')
  })

  it('a secret that is a link, or that others may read, proves nothing', async () => {
    const dir = tempDir()
    const sandbox = await sandboxIn(dir)
    const file = path.join(dir, PROOF_FILE)
    const linked = tempDir()
    fs.symlinkSync(file, path.join(linked, PROOF_FILE))
    expect(await probeSandbox(sandbox.baseUrl, { dir: linked })).toBe('unproven')
    const copy = tempDir()
    fs.copyFileSync(file, path.join(copy, PROOF_FILE))
    fs.chmodSync(path.join(copy, PROOF_FILE), 0o600)
    expect(await probeSandbox(sandbox.baseUrl, { dir: copy })).toBe('proven')
    fs.chmodSync(path.join(copy, PROOF_FILE), 0o640)
    expect(await probeSandbox(sandbox.baseUrl, { dir: copy })).toBe('unproven')
  })
})
