/**
 * `pay sandbox listen [--forward-to URL]`, as the Stripe CLI's `listen`: a receiver on a loopback
 * port of its own, registered with the running sandbox as an endpoint of the key's business for
 * as long as the command runs. Each notification that comes is checked against the business's
 * signature key, strictly (src/shared/webhook-signature.ts: one that does not verify is refused,
 * 401, saying why: anything on this machine can reach the port), forwarded as it came, byte for
 * byte, to --forward-to, whose answer is the sandbox's; or, without --forward-to, shown whole and
 * answered 200. One line each (one JSON line under --json).
 *
 * The endpoint lives while it is renewed (a lease of LEASE_SECONDS, renewed every RENEW_MS), so
 * that one left by a listen killed with `kill -9` goes on its own; it is removed when listen ends
 * (Ctrl-C, SIGTERM), and listen ends when the sandbox stops answering.
 */
import http from 'node:http'
import type Https from 'node:https'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { PayError, usageError, validationError } from '../../../errors.js'
import type { RunContext } from '../../../runtime/context.js'
import { randomHex } from '../../../shared/crypto.js'
import { webhookProblem } from '../../../shared/webhook-signature.js'
import { NO_CREDENTIALS, webhookUrlProblem } from '../../../shared/webhook-url.js'
import { isRecord, type Rec } from '../../../values.js'
import { addSandboxWebhook, removeSandboxWebhook, sandboxWebhooks } from '../controls.js'
import { runningSandbox } from '../where.js'
import { RECEIVED_VIEW, receivedText, receivedTsv } from './webhook-views.js'

/** The endpoint's lease, and how often it is renewed: a listen gone is forgotten within a lease. */
const LEASE_SECONDS = 20
const RENEW_MS = 5_000
/** A forward answers within the sandbox's 10 s per attempt, so that the sandbox hears the answer. */
const FORWARD_TIMEOUT_MS = 9_000
/** The largest notification taken: they are about half a kilobyte. */
const MAX_NOTIFICATION_BYTES = 1024 * 1024
/** Of the forward's answer, what is read before the connection is cut. */
const MAX_ANSWER_BYTES = 64 * 1024

type ListenContext = Pick<RunContext, 'sandboxTarget' | 'io' | 'out'>

/**
 * Listens until Ctrl-C or SIGTERM (then its endpoint is removed), or until the sandbox stops
 * answering (exit 6). It goes on printing: what it starts with and each notification are written
 * through the run's output as they come. What it comes to: how many notifications it received.
 */
export async function listen(
  { forwardTo }: { forwardTo?: string },
  context: ListenContext,
): Promise<{ received: number }> {
  const { io, out } = context
  const problem = forwardTo === undefined ? undefined : webhookUrlProblem(forwardTo)
  if (problem === 'credentials') throw validationError({ forward_to: [`The URL ${NO_CREDENTIALS}.`] })
  if (problem !== undefined) {
    throw usageError(`--forward-to must be an http:// or https:// URL, not "${forwardTo}".`)
  }
  const { api, target } = runningSandbox(await context.sandboxTarget(), 'sandbox listen')
  const { signature_key: key } = await sandboxWebhooks(api)
  let received = 0
  // What each notification tells, for its line on a terminal (its JSON line has the status as sent).
  const outcomes = new WeakMap<Rec, string>()
  const show = { text: (r: Rec) => receivedText(r, io.colour, outcomes.get(r) ?? ''), tsv: receivedTsv }
  const print = (line: Rec, status: unknown) => {
    outcomes.set(line, status === 1 ? 'paid' : status === 2 ? 'pending' : 'failed')
    out.entries([line], RECEIVED_VIEW, show, true)
  }
  const receiver = await startReceiver(async (body) => {
    const problem = webhookProblem(body, key)
    if (problem !== undefined) {
      out.warn(`A notification that does not verify with the signature key was refused (401): ${problem}.`)
      return 401
    }
    received++
    const notification = JSON.parse(body) as Rec
    const data = isRecord(notification.data) ? notification.data : {}
    const about = { event: notification.event, payment_link_id: data.payment_link_id }
    if (forwardTo === undefined) {
      print({ ...about, url: receiver.url, status: 200, ms: 0, body: notification }, data.payment_status)
      return 200
    }
    const answer = await forward(forwardTo, body)
    const error = answer.status === null ? { error: answer.error } : {}
    print({ ...about, url: forwardTo, status: answer.status, ms: answer.ms, ...error }, data.payment_status)
    return answer.status ?? 502
  })
  let endpoint: Rec
  try {
    endpoint = await addSandboxWebhook(api, { url: receiver.url, lease_seconds: LEASE_SECONDS })
  } catch (error) {
    await receiver.close()
    throw error
  }
  const to = forwardTo === undefined ? 'Each notification is shown here.' : `Forwarding each to ${forwardTo}.`
  out.notice(
    [
      `Listening for the notifications of the sandbox at ${target.baseUrl} (endpoint ${endpoint._id}).`,
      to,
      `Signature key: ${key}`,
      'Ctrl-C stops.',
    ].join('\n'),
  )
  let renewal: NodeJS.Timeout | undefined
  const ended = new Promise<PayError | undefined>((resolve) => {
    const stopListening = io.onInterrupt(() => resolve(undefined), { terminate: true })
    const renew = () => {
      renewal = setTimeout(async () => {
        try {
          await addSandboxWebhook(api, { url: receiver.url, lease_seconds: LEASE_SECONDS }, { renewal: true })
          renew()
        } catch (error) {
          stopListening()
          resolve(goneError(error, target.baseUrl))
        }
      }, RENEW_MS)
    }
    renew()
  })
  const gone = await ended
  clearTimeout(renewal)
  await receiver.close()
  if (gone) throw gone
  await removeSandboxWebhook(api, String(endpoint._id)).catch(() => {})
  return { received }
}

/** Why the renewal failed: the sandbox gone (exit 6, the endpoint left to its lease), or what it answered. */
function goneError(error: unknown, baseUrl: string): PayError {
  if (error instanceof PayError && error.kind !== 'unavailable') return error
  return new PayError(`The sandbox at ${baseUrl} stopped answering: stopped listening.`, {
    kind: 'unavailable',
    hint: `Its endpoint goes within ${LEASE_SECONDS} s. Start the sandbox again, then \`pay sandbox listen\`.`,
  })
}

/** A loopback server that takes POSTs at a random path and answers each with what `handle` says. */
async function startReceiver(handle: (body: string) => Promise<number>) {
  const path = `/listen/${randomHex(12)}`
  const server = http.createServer((request, response) => {
    const answer = (status: number) => response.writeHead(status, { 'Content-Length': 0 }).end()
    if (request.method !== 'POST' || request.url !== path) return answer(404)
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_NOTIFICATION_BYTES) chunks.push(chunk)
    })
    request.on('end', () => {
      if (size > MAX_NOTIFICATION_BYTES) return answer(413)
      handle(Buffer.concat(chunks).toString('utf8')).then(answer, () => answer(500))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** POSTs the notification as it came to `url`: its answer's status, or what went wrong. */
function forward(url: string, body: string): Promise<{ status: number | null; error?: string; ms: number }> {
  const started = process.hrtime.bigint()
  const ms = () => Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10
  return new Promise((resolve) => {
    let done = false
    const finish = (status: number | null, error?: string) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve({ status, error, ms: ms() })
    }
    const target = new URL(url)
    // node:https (TLS) loads only for an https target: every other command's start-up skips it.
    const client =
      target.protocol === 'https:' ? (createRequire(import.meta.url)('node:https') as typeof Https) : http
    const request = client.request(target, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    })
    const timer = setTimeout(() => {
      request.destroy()
      finish(null, `no answer within ${FORWARD_TIMEOUT_MS / 1000} s`)
    }, FORWARD_TIMEOUT_MS)
    request.on('response', (response) => {
      let read = 0
      response.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER_BYTES) response.destroy()
      })
      response.on('close', () => finish(response.statusCode ?? null))
    })
    request.on('error', (error: NodeJS.ErrnoException) => finish(null, error.code ?? error.message))
    request.end(body)
  })
}
