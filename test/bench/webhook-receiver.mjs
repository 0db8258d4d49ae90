/**
 * The bench's webhook receiver, a process of its own: answers every POST 200 at once and keeps
 * its body and when it came; `GET /count` says how many it got and the milliseconds from the
 * first to the last (`{count, span_ms}`), `GET /bodies` gives them (a JSON array of the texts),
 * `DELETE /bodies` forgets them. Prints `{"url"}` once listening.
 */
import http from 'node:http'
import { performance } from 'node:perf_hooks'

const bodies = []
const times = []
const server = http.createServer((request, response) => {
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk) => {
    body += chunk
  })
  request.on('end', () => {
    if (request.method === 'POST') {
      bodies.push(body)
      times.push(performance.now())
      return response.writeHead(200, { 'Content-Length': 0 }).end()
    }
    if (request.method === 'DELETE') {
      bodies.length = 0
      times.length = 0
    }
    const span = times.length < 2 ? 0 : times.at(-1) - times[0]
    const answer =
      request.url === '/bodies' && request.method === 'GET' ? bodies : { count: bodies.length, span_ms: span }
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer))
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`)
})
process.on('SIGTERM', () => process.exit(0))
