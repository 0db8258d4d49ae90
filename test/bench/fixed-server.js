/** The floor of the sandbox's load section: node:http answering every request with one fixed JSON body. */
import http from 'node:http'

const body = Buffer.from(
  '{"success":true,"data":{"_id":"65a1f0c2e4b0a1b2c3d4e5f6","status":"Active"},"errors":null,"meta":{"timestamp":"2025-01-15 10:30:00 UTC","timezone":"UTC"}}',
)
const server = http.createServer((request, response) => {
  request.resume() // the request's body, read and dropped
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
    response.end(body)
  })
})
server.listen(0, '127.0.0.1', () =>
  console.log(JSON.stringify({ base_url: `http://127.0.0.1:${server.address().port}` })),
)
process.on('SIGTERM', () => process.exit(0))
