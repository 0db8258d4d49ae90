/**
 * A local node:http server with fixed answers, for the client-side measurements (nothing in it
 * should cost more for one client than another):
 *   GET /payment-links/ID          envelope (docs/spec/payment-service-api.md 2.1) of a payment link (2.3)
 *   GET /v1/payment_links/ID       the same bytes, for `stripe get` (which prefixes /v1)
 *   GET /payment-links[?page=N]    `--links` links, newest first, `--per-page` a page, in the
 *                                  sandbox's paginated envelope with next_page_url
 *   GET /__requests                the requests since the last /__requests (method and URL),
 *                                  to check that two clients made the same ones
 * Every answer is prepared once at start-up. Requests need `Authorization: Bearer KEY`.
 * Prints one JSON line {"base_url"} once listening; stops on SIGTERM.
 *
 * node test/bench/fixture-server.js --key KEY [--links 10000] [--per-page 50]
 */
import http from 'node:http'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    key: { type: 'string' },
    links: { type: 'string', default: '1' },
    'per-page': { type: 'string', default: '50' },
  },
})
const linkCount = Number(values.links)
const perPage = Number(values['per-page'])

const meta = { timestamp: '2025-01-15 10:30:00 UTC', timezone: 'UTC' }
const envelope = (data) => ({ success: true, data, errors: null, meta })

/** A payment link as docs/spec/payment-service-api.md 2.3 describes it, every optional field present. */
function link(n) {
  const id = (0x65a1f0c2e4b0a1b2c3d4e5f6n + BigInt(n)).toString(16)
  const at = new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString()
  return {
    _id: id,
    email: `customer${n}@example.com`,
    phone_no: '+14155550100',
    currency: 'EUR',
    amount: 1000 + (n % 9000) + 0.5,
    title: `Invoice ${n}`,
    description: 'Monthly service fee, paid by card',
    redirect_url: 'https://shop.example.com/thanks',
    reference: `INV-${String(n).padStart(6, '0')}`,
    reference_2: 'bench',
    status: 'Active',
    payment_url: `https://pay.example.com/checkout?id=${id}`,
    business_id: 1,
    paid: false,
    created_at: at,
    updated_at: at,
  }
}

const LINK = link(0)

const oneLink = Buffer.from(JSON.stringify(envelope(LINK)))
const pages = []
const lastPage = Math.max(1, Math.ceil(linkCount / perPage))
let origin = ''

function buildPages() {
  const all = Array.from({ length: linkCount }, (_, i) => link(linkCount - i))
  const path = `${origin}/payment-links`
  const url = (page) => `${path}?page=${page}`
  for (let page = 1; page <= lastPage; page += 1) {
    const data = all.slice((page - 1) * perPage, page * perPage)
    const from = (page - 1) * perPage + 1
    const body = envelope({
      current_page: page,
      data,
      first_page_url: url(1),
      from,
      last_page: lastPage,
      last_page_url: url(lastPage),
      next_page_url: page < lastPage ? url(page + 1) : null,
      path,
      per_page: perPage,
      prev_page_url: page > 1 ? url(page - 1) : null,
      to: from + data.length - 1,
      total: linkCount,
    })
    pages.push(Buffer.from(JSON.stringify(body)))
  }
}

let requests = []

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length })
  res.end(body)
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, origin)
  if (url.pathname === '/__requests') {
    send(res, 200, Buffer.from(JSON.stringify(requests)))
    requests = []
    return
  }
  requests.push(`${req.method} ${req.url}`)
  if (req.headers.authorization !== `Bearer ${values.key}`) {
    return send(res, 401, Buffer.from('{"success":false,"message":"Unauthenticated.","errors":null}'))
  }
  if (req.method === 'GET' && /^\/(payment-links|v1\/payment_links)\/[^/]+$/.test(url.pathname)) {
    return send(res, 200, oneLink)
  }
  if (req.method === 'GET' && url.pathname === '/payment-links') {
    const page = Number(url.searchParams.get('page') ?? '1')
    if (Number.isInteger(page) && page >= 1 && page <= lastPage) return send(res, 200, pages[page - 1])
  }
  send(res, 404, Buffer.from('{"success":false,"message":"Not found.","errors":null}'))
})

server.listen(0, '127.0.0.1', () => {
  origin = `http://127.0.0.1:${server.address().port}`
  buildPages()
  process.stdout.write(`${JSON.stringify({ base_url: origin, link_id: LINK._id })}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
