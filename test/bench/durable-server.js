/**
 * The limit of a durable create (bench-durable.js): the least a server must do to create a
 * payment link that survives kill -9, on the sandbox's store engine with its guarantee. It parses
 * the JSON body; inserts one row with a prepared statement into libsql (WAL, synchronous =
 * NORMAL, as the sandbox); commits the inserts of one turn of the event loop together (one
 * BEGIN IMMEDIATE … COMMIT, setImmediate); answers each request only after that commit.
 *
 * node test/bench/durable-server.js DIR   prints {"base_url","database"} once listening
 */
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { createRequire } from 'node:module'
import path from 'node:path'

const Database = createRequire(import.meta.url)('libsql')
const file = path.join(process.argv[2], 'durable.db')
const db = new Database(file)
db.exec('PRAGMA journal_mode = WAL')
db.exec('PRAGMA synchronous = NORMAL')
db.exec('CREATE TABLE IF NOT EXISTS payment_links (id TEXT PRIMARY KEY, record TEXT NOT NULL)')
const insert = db.prepare('INSERT INTO payment_links (id, record) VALUES (?, ?)')
const begin = db.prepare('BEGIN IMMEDIATE')
const commit = db.prepare('COMMIT')

/** The answers waiting for this turn's commit. */
let waiting = []
function commitTurn() {
  const answers = waiting
  waiting = []
  commit.run()
  for (const answer of answers) answer()
}

function send(response, status, text) {
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  response.end(text)
}

const server = http.createServer((request, response) => {
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', () => {
    let body
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      return send(response, 400, '{"success":false,"message":"Bad JSON."}')
    }
    const record = { _id: randomBytes(12).toString('hex'), ...body, status: 'Active' }
    const text = JSON.stringify(record)
    if (waiting.length === 0) {
      begin.run()
      setImmediate(commitTurn)
    }
    insert.run(record._id, text)
    waiting.push(() => send(response, 201, `{"success":true,"data":${text},"errors":null}`))
  })
})
server.listen(0, '127.0.0.1', () =>
  console.log(JSON.stringify({ base_url: `http://127.0.0.1:${server.address().port}`, database: file })),
)
process.on('SIGTERM', () => {
  if (waiting.length > 0) commitTurn()
  db.close()
  process.exit(0)
})
