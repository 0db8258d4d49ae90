import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { envelope, type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { CANARY_KEY, calls, expectNoStack, redirect, runPay, serve } from '../../helpers/fault-server.js'
import { linkCreateArgs } from '../../helpers/links.js'

/**
 * pay over HTTPS, as it talks to the real service: a local HTTPS server with a certificate made
 * for the test (openssl), trusted through NODE_EXTRA_CA_CERTS, or not trusted at all.
 */

const LINK = { _id: 'lnk_1', status: 'Active', paid: false, amount: 10, currency: 'EUR', email: 'a@b.co' }

let tls: { key: string; cert: string }
let caFile: string
beforeAll(() => {
  const dir = tempDir('pay-tls-')
  const keyFile = path.join(dir, 'key.pem')
  caFile = path.join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyFile, '-out', caFile, '-days', '2', '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=DNS:localhost'],
    ],
    { stdio: 'ignore' },
  )
  tls = { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(caFile, 'utf8') }
})

async function serveTls(
  context: { onTestFinished: (fn: () => Promise<void>) => void },
  handler: Parameters<typeof startFakeServer>[0],
): Promise<FakeServer> {
  const server = await startFakeServer(handler, { tls })
  context.onTestFinished(() => server.close())
  return server
}

const trusted = () => ({ env: { NODE_EXTRA_CA_CERTS: caFile } })

describe.concurrent('over HTTPS', () => {
  it('links get: the record, the key sent as a Bearer token over TLS', async (context) => {
    const server = await serveTls(context, (_, res) => sendJson(res, 200, envelope(LINK)))
    expect(server.baseUrl).toMatch(/^https:\/\/localhost:\d+$/)
    const result = await runPay(['links', 'get', 'lnk_1', '--json'], server.baseUrl, trusted())
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout)).toEqual(LINK)
    expect(calls(server.requests)).toEqual(['GET /payment-links/lnk_1'])
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${CANARY_KEY}`)
  })

  it('links create: one POST with its Idempotency-Key and the amount as typed', async (context) => {
    const server = await serveTls(context, (_, res) => sendJson(res, 200, envelope(LINK)))
    const result = await runPay([...linkCreateArgs('25.50'), '--json'], server.baseUrl, trusted())
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(calls(server.requests)).toEqual(['POST /payment-links'])
    expect(server.requests[0].headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/)
    expect(JSON.parse(server.requests[0].body)).toMatchObject({ amount: '25.50' })
  })

  it('an untrusted certificate: exit 6 at once (not retried), the reason and a hint, nothing sent', async (context) => {
    const server = await serveTls(context, (_, res) => sendJson(res, 200, envelope(LINK)))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result.code).toBe(6)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `Error: Could not reach ${server.baseUrl}: its TLS certificate is self-signed and not trusted.\n` +
        'If the service uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its certificate.\n',
    )
    expectNoStack(result.stderr)
    expect(server.requests).toEqual([])
    const traced = await runPay(['links', 'get', 'lnk_1', '--debug'], server.baseUrl)
    expect(traced.stderr.match(/^\[debug\] > GET /gm)).toHaveLength(1)
    expect(traced.stderr).toContain('[debug] < DEPTH_ZERO_SELF_SIGNED_CERT after')
  })

  it('a certificate for another host name: exit 6, said so', async (context) => {
    const server = await serveTls(context, (_, res) => sendJson(res, 200, envelope(LINK)))
    // The certificate names localhost only; 127.0.0.1 is the same server under another name.
    const byAddress = server.baseUrl.replace('localhost', '127.0.0.1')
    const result = await runPay(['links', 'get', 'lnk_1'], byAddress, trusted())
    expect(result.code).toBe(6)
    expect(result.stderr.split('\n')[0]).toBe(
      `Error: Could not reach ${byAddress}: its TLS certificate is not for this host name.`,
    )
    expect(server.requests).toEqual([])
  })

  it('a redirect from https to http on the same host is not followed: the key stays put', async (context) => {
    const plain = await serve(context, (_, res) => sendJson(res, 200, envelope(LINK)))
    const target = `http://localhost:${new URL(plain.baseUrl).port}/payment-links/lnk_1`
    const server = await serveTls(context, redirect(target, 302))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl, trusted())
    expect(result.code).toBe(6)
    expect(result.stderr).toContain(`redirect to http://localhost:${new URL(plain.baseUrl).port}`)
    expect(plain.requests).toEqual([])
  })
})
