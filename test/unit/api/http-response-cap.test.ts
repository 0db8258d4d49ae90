import type http from 'node:http'
import zlib from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { envelope } from '../../helpers/fake-server.js'
import { calls, type Handler, payRunner, serve } from '../../helpers/fault-server.js'
import { runInProcess } from '../../helpers/in-process.js'

/** pay, run in this process against the fault servers (test/helpers/in-process.ts). */
const runPay = payRunner(runInProcess)

/**
 * A server that answers more than pay reads: 50 MB an answer (decoded), and for `pay api
 * --paginate`, which holds every page until the end, 100 MB in all. Past that pay stops reading,
 * exits 6 and says why; it is not retried.
 */

const MB = 1024 * 1024
const TOO_LARGE = (port: string) =>
  `Error: The answer from http://127.0.0.1:${port} is larger than 50 MB: pay stopped reading it.\n` +
  'pay reads at most 50 MB of one answer; no page of a real service is that large.\n'
const LINK = {
  _id: 'lnk_1',
  status: 'Active',
  paid: false,
  amount: 10,
  currency: 'EUR',
  email: 'a@b.co',
  title: 'T',
}

const portOf = (baseUrl: string) => new URL(baseUrl).port

/** Writes `chunk` `times` times, waiting for the client to drain, and stops if it goes away. */
async function stream(response: http.ServerResponse, chunk: Buffer, times: number): Promise<void> {
  for (let i = 0; i < times && !response.destroyed; i += 1) {
    if (!response.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done)
          response.off('close', done)
          resolve()
        }
        response.on('drain', done)
        response.on('close', done)
      })
    }
  }
  response.end()
}

/** A 200 of `mb` megabytes of JSON (a title that long), with or without Content-Length. */
const huge =
  (mb: number, declared: boolean): Handler =>
  async (_, response) => {
    const head = Buffer.from('{"data":{"_id":"lnk_1","title":"')
    const tail = Buffer.from('"}}')
    const chunk = Buffer.alloc(MB, 'x')
    response.writeHead(200, {
      'content-type': 'application/json',
      ...(declared ? { 'content-length': String(head.length + mb * MB + tail.length) } : {}),
    })
    response.write(head)
    await stream(response, chunk, mb)
  }

/** A body sent with a Content-Encoding. */
const encoded =
  (encoding: string, body: Buffer): Handler =>
  (_, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding })
    response.end(body)
  }

describe.concurrent('one answer over 50 MB', () => {
  it('streamed without Content-Length (60 MB): exit 6 once past 50 MB, not retried', async (t) => {
    const server = await serve(t, huge(60, false))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl, { timeoutMs: 60_000 })
    expect(result).toMatchObject({ code: 6, stdout: '', stderr: TOO_LARGE(portOf(server.baseUrl)) })
    expect(calls(server.requests)).toEqual(['GET /payment-links/lnk_1'])
  })

  it('announced by Content-Length: refused on the headers, nothing of the body kept', async (t) => {
    const server = await serve(t, huge(60, true))
    const result = await runPay(['links', 'get', 'lnk_1', '--debug'], server.baseUrl, { timeoutMs: 60_000 })
    expect(result.code).toBe(6)
    expect(result.stderr).toMatch(/^\[debug\] < an answer over 50 MB, not read further \(\d+ ms\)$/m)
    expect(result.stderr).toContain(TOO_LARGE(portOf(server.baseUrl)))
    expect(calls(server.requests)).toEqual(['GET /payment-links/lnk_1'])
  })

  it('a 60 KB gzip body that inflates to 60 MB (a zip bomb) is stopped at 50 MB', async (t) => {
    const bomb = zlib.gzipSync(Buffer.alloc(60 * MB, ' '))
    expect(bomb.length).toBeLessThan(MB)
    const server = await serve(t, encoded('gzip', bomb))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({ code: 6, stdout: '', stderr: TOO_LARGE(portOf(server.baseUrl)) })
  })

  it('a POST answered with 60 MB: exit 6, sent once, with the Idempotency-Key to send it again', async (t) => {
    const server = await serve(t, huge(60, true))
    const args = [
      'links',
      'create',
      '--email',
      'a@b.co',
      '--currency',
      'EUR',
      '--amount',
      '10',
      '--title',
      'T',
    ]
    const result = await runPay(args, server.baseUrl, { timeoutMs: 60_000 })
    expect(result.code).toBe(6)
    const key = server.requests[0].headers['idempotency-key']
    expect(result.stderr).toContain('is larger than 50 MB: pay stopped reading it.\n')
    expect(result.stderr).toContain(
      `The payment link may have been created all the same (Idempotency-Key ${key}).`,
    )
    expect(calls(server.requests)).toEqual(['POST /payment-links'])
  })
})

describe.concurrent('encoded answers within the limit', () => {
  const body = Buffer.from(JSON.stringify(envelope(LINK)))
  it.for([
    ['gzip', zlib.gzipSync(body)],
    ['x-gzip', zlib.gzipSync(body)],
    ['deflate', zlib.deflateSync(body)],
    ['deflate', zlib.deflateRawSync(body)],
    ['br', zlib.brotliCompressSync(body)],
    ['identity', body],
  ] as const)('%s: decoded as before (pay asks for gzip, deflate and br)', async ([encoding, data], t) => {
    const server = await serve(t, encoded(encoding, data))
    const result = await runPay(['links', 'get', 'lnk_1', '--json'], server.baseUrl)
    expect([result.code, result.stderr]).toEqual([0, ''])
    expect(JSON.parse(result.stdout)).toEqual(LINK)
    expect(server.requests[0].headers['accept-encoding']).toBe('gzip, deflate, br')
  })

  it('an encoding pay did not ask for, or data that does not decode: exit 6, said plainly', async (t) => {
    const compress = await serve(t, encoded('compress', body))
    const first = await runPay(['links', 'get', 'lnk_1'], compress.baseUrl)
    expect([first.code, first.stderr]).toEqual([
      6,
      'Error: Unexpected answer from the service: an answer encoded as "compress", which pay did not ask for.\n',
    ])
    const broken = await serve(t, encoded('gzip', body))
    const second = await runPay(['links', 'get', 'lnk_1'], broken.baseUrl)
    expect([second.code, second.stderr]).toEqual([
      6,
      'Error: Unexpected answer from the service: an answer encoded as "gzip" that does not decode.\n',
    ])
  })
})

describe.concurrent('pay api --paginate', () => {
  it('endless pages of 10 MB: stops past 100 MB in all (10 pages), exit 6', async (t) => {
    // Each page holds one item with a 10 MB title, and points to the next, for ever.
    const server = await serve(t, async (request, response) => {
      const page = Number(new URL(request.path, 'http://x').searchParams.get('page') ?? '1')
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write(`{"data":{"data":[{"_id":"p${page}","title":"`)
      await new Promise<void>((resolve) => response.write(Buffer.alloc(10 * MB, 'y'), () => resolve()))
      response.end(`"}],"next_page_url":"/payment-links?page=${page + 1}"}}`)
    })
    const result = await runPay(['api', '/payment-links', '--paginate'], server.baseUrl, {
      timeoutMs: 120_000,
    })
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr:
        `Error: The pages from http://127.0.0.1:${portOf(server.baseUrl)} add up to more than 100 MB after 10 pages: pay stopped following them.\n` +
        '`pay api --paginate` holds every page until the end; `pay links list --all --jsonl` prints each as it comes.\n',
    })
    expect(server.requests.length).toBe(10)
  })
})
