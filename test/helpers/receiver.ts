import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A webhook receiver on a loopback port, as an app's handler would be: it keeps every request it
 * gets (method, path, headers, the body as received) and answers each as `answer` says (200 by
 * default): a status, or `hang` (no answer until it closes).
 */

/**
 * An endpoint nothing answers: port 1 of loopback, which no test listens on. Not a receiver
 * started and closed: its freed port can be taken at once by another test's server, which answers.
 */
export const NOTHING_LISTENS = 'http://127.0.0.1:1/hook'

export interface Received {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: string
}

export type ReceiverAnswer =
  | number
  | 'hang'
  | ((received: Received, index: number) => number | 'hang' | ((response: http.ServerResponse) => void))

export interface Receiver {
  /** `http://127.0.0.1:PORT/hook`. */
  url: string
  origin: string
  received: Received[]
  /** The bodies received, parsed. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read the notification's JSON
  notifications(): any[]
  answer: ReceiverAnswer
  close(): Promise<void>
}

export async function startReceiver(answer: ReceiverAnswer = 200): Promise<Receiver> {
  const received: Received[] = []
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      received.push(entry)
      const given = receiver.answer
      const decided = typeof given === 'function' ? given(entry, received.length - 1) : given
      if (decided === 'hang') return
      if (typeof decided === 'function') return decided(response)
      response.writeHead(decided, { 'Content-Type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const receiver: Receiver = {
    url: `${origin}/hook`,
    origin,
    received,
    notifications: () => received.map((entry) => JSON.parse(entry.body)),
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
  return receiver
}
