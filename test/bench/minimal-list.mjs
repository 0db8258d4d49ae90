/**
 * The floor `pay links list --json --all` is measured against: GET /payment-links, then every
 * next_page_url in turn (as pay follows them), all records printed as one JSON array (2-space
 * indent, like pay).
 *
 * PAY_API_KEY=... PAY_BASE_URL=http://127.0.0.1:PORT node test/bench/minimal-list.mjs
 */
import http from 'node:http'

const headers = { accept: 'application/json', authorization: `Bearer ${process.env.PAY_API_KEY}` }

function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks = []
        res.on('data', (chunk) => chunks.push(chunk))
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${res.statusCode} from ${url}`))
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
        })
      })
      .on('error', reject)
  })
}

const items = []
let next = `${process.env.PAY_BASE_URL}/payment-links`
while (next) {
  const page = (await get(next)).data
  for (const item of page.data) items.push(item)
  next = page.next_page_url ? new URL(page.next_page_url, next).href : undefined
}
process.stdout.write(`${JSON.stringify(items, null, 2)}\n`)
