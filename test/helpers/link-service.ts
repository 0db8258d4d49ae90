import type { TestContext } from 'vitest'
import { expect } from 'vitest'
import { envelope, type Handler, type RecordedRequest, sendJson, startFakeServer } from './fake-server.js'
import { FAKE_KEY } from './links.js'

/**
 * A fake payment service for the request tests of test/commands/ (links and token): it records
 * each request (method, path, headers, raw body) and answers like the service.
 */

export const ID = '65a1f0c2e4b0a1b2c3d4e5f6'

export const STORED = {
  _id: ID,
  email: 'jane@example.com',
  phone_no: '555-0100',
  currency: 'EUR',
  amount: 25.5,
  title: 'Invoice 1042',
  description: 'Two boxes of tea',
  reference: 'ORDER-7',
  status: 'Active',
  payment_url: `https://pay.example/checkout/pay?id=${ID}`,
  business_id: 42,
  paid: false,
  created_at: '2026-01-01T10:00:00.000Z',
  updated_at: '2026-01-01T10:00:00.000Z',
}

/** Answers like the service: echoes a created or updated link, serves STORED, deletes anything. */
const linkService: Handler = (request, response) => {
  if (request.method === 'POST' && request.path === '/payment-links') {
    const body = JSON.parse(request.body)
    delete body.send_email
    return sendJson(response, 200, envelope({ ...STORED, ...body, amount: Number(body.amount) }))
  }
  if (request.method === 'POST' && request.path === '/tokenizations/create-token') {
    const body = JSON.parse(request.body)
    return sendJson(
      response,
      200,
      envelope({
        _id: ID,
        ...body,
        token: 'tok_1',
        activation_url: 'https://pay.example/t/tok_1/activate',
      }),
    )
  }
  if (request.method === 'GET' && request.path === `/payment-links/${ID}`) {
    return sendJson(response, 200, envelope(STORED))
  }
  if (request.method === 'PUT' && request.path === `/payment-links/${ID}`) {
    const body = JSON.parse(request.body)
    return sendJson(response, 200, envelope({ ...STORED, ...body, amount: Number(body.amount) }))
  }
  if (request.method === 'GET' && request.path === '/payment-links') {
    return sendJson(response, 200, envelope([STORED]))
  }
  if (request.method === 'DELETE') {
    response.writeHead(204).end()
    return
  }
  sendJson(response, 404, { message: 'Not found.' })
}

/** A fake service closed when the test ends (the test's own hook: tests here run concurrently). */
export async function fakeService(context: TestContext, handler: Handler = linkService) {
  const fake = await startFakeServer(handler)
  context.onTestFinished(() => fake.close())
  return fake
}

/**
 * A recording server that answers every request 404, closed when the test ends: for the checks
 * that must send nothing.
 */
export async function silentServer(context: TestContext) {
  const fake = await startFakeServer()
  context.onTestFinished(() => fake.close())
  return fake
}

/** The headers every request carries (docs/spec/payment-service-api.md section 5). */
export function expectServiceHeaders(request: RecordedRequest) {
  expect(request.headers.accept).toBe('application/json')
  expect(request.headers['content-type']).toBe('application/json')
  expect(request.headers.authorization).toBe(`Bearer ${FAKE_KEY}`)
}
