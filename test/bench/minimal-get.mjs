/**
 * The floor `pay links get ID --json` is measured against: the same request with node:http and
 * the same output (the record, JSON with 2-space indent), nothing else.
 *
 * PAY_API_KEY=... PAY_BASE_URL=http://127.0.0.1:PORT node test/bench/minimal-get.mjs ID
 */
import http from 'node:http'

const url = `${process.env.PAY_BASE_URL}/payment-links/${encodeURIComponent(process.argv[2])}`
const headers = { accept: 'application/json', authorization: `Bearer ${process.env.PAY_API_KEY}` }

http.get(url, { headers }, (res) => {
  const chunks = []
  res.on('data', (chunk) => chunks.push(chunk))
  res.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    if (res.statusCode !== 200) {
      process.stderr.write(`${res.statusCode} ${body.message}\n`)
      process.exitCode = 1
      return
    }
    process.stdout.write(`${JSON.stringify(body.data, null, 2)}\n`)
  })
})
