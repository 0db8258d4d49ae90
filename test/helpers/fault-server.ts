import type { Socket } from 'node:net'
import { expect } from 'vitest'
import { type CliResult, type Runner, runCli } from './cli.js'
import {
  type FakeServer,
  type Handler,
  type RecordedRequest,
  sendJson,
  startFakeServer,
} from './fake-server.js'

/**
 * A fake server that answers from a script of faults (5xx, resets, hangs, cut-off or huge
 * bodies, redirects), for retry and timeout tests. It keeps what arrived, in order, never when:
 * the waits a retry asked for are in pay's --debug trace (`retrying in N ms`), and a time is a
 * figure for `npm run bench`, never asserted.
 */

/** Recognisable, so a leak into any output is caught by expectNoLeak. */
export const CANARY_KEY = 'sk_canary_DO_NOT_LEAK_4f9c2e7a1b'

export interface FaultServer extends FakeServer {
  /** Answers the next requests in turn with these handlers; the last one answers the rest. */
  script(...handlers: Handler[]): void
}

export async function startFaultServer(...handlers: Handler[]): Promise<FaultServer> {
  let queue: Handler[] = handlers.length > 0 ? handlers : [json(404, { message: 'Not found' })]
  const fake = await startFakeServer((request, response) => {
    const handler = queue.length > 1 ? queue.shift()! : queue[0]
    return handler(request, response)
  })
  return Object.assign(fake, {
    script(...next: Handler[]) {
      queue = next
    },
  })
}

/**
 * A fault server for one test, closed when it finishes. Takes the test's context, whose
 * onTestFinished works in concurrent tests too (the global one does not).
 */
export async function serve(
  context: { onTestFinished: (fn: () => Promise<void>) => void },
  ...handlers: Handler[]
): Promise<FaultServer> {
  const server = await startFaultServer(...handlers)
  context.onTestFinished(() => server.close())
  return server
}

/** A JSON answer. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_, res) =>
    sendJson(res, status, body, headers)

/** A raw answer: the body exactly as given, with this content type (none when undefined). */
export const raw =
  (
    status: number,
    body: string | Buffer,
    contentType?: string,
    headers: Record<string, string> = {},
  ): Handler =>
  (_, res) => {
    res.writeHead(status, { ...(contentType ? { 'content-type': contentType } : {}), ...headers })
    res.end(body)
  }

/** 204 No Content. */
export const noContent = (): Handler => (_, res) => {
  res.writeHead(204)
  res.end()
}

/** The connection reset (TCP RST) once the request has been read, with no answer. */
export const reset = (): Handler => (_, res) => {
  const socket = res.socket as (Socket & { resetAndDestroy?: () => void }) | null
  if (socket?.resetAndDestroy) socket.resetAndDestroy()
  else socket?.destroy()
}

/** Never answers (the server's close() ends the connection). */
export const hang = (): Handler => () => {}

/**
 * A 200 whose body stops after `partial`: the headers promise `declared` bytes, then the
 * connection closes.
 */
export const cutOff =
  (partial: string, declared = partial.length + 100): Handler =>
  (_, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(declared) })
    res.write(partial, () => setTimeout(() => res.socket?.destroy(), 20))
  }

/** A redirect to `location`. */
export const redirect =
  (location: string, status = 302): Handler =>
  (_, res) => {
    res.writeHead(status, { location, 'content-type': 'text/html' })
    res.end(`<a href="${location}">moved</a>`)
  }

/**
 * Runs `pay` against `baseUrl` with the canary key, and fails the test if the key shows up
 * in stdout or stderr, whatever the command did. Through bin/run.js; `payRunner(runInProcess)`
 * is the same in this process.
 */
export const runPay = payRunner(runCli)

/** runPay, through `run`. */
export function payRunner(run: Runner) {
  return async (
    args: string[],
    baseUrl: string,
    options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
  ): Promise<CliResult> => {
    const result = await run(args, {
      ...options,
      env: { PAY_API_KEY: CANARY_KEY, PAY_BASE_URL: baseUrl, ...options.env },
    })
    expectNoLeak(result)
    return result
  }
}

export function expectNoLeak(result: { stdout: string; stderr: string }) {
  for (const text of [result.stdout, result.stderr]) {
    expect(text).not.toContain(CANARY_KEY)
    expect(text).not.toContain('sk_canary')
  }
}

/** No line of a stack trace (`    at fn (file:1:2)`). */
export function expectNoStack(text: string) {
  expect(text).not.toMatch(/^\s+at /m)
}

/** Method and path of each request, e.g. `GET /payment-links/x`. */
export const calls = (requests: RecordedRequest[]) => requests.map((r) => `${r.method} ${r.path}`)

export type { Handler, RecordedRequest }
