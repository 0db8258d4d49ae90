import { envelope, type FakeServer, sendJson, startFakeServer } from './fake-server.js'

/**
 * A fake service that accepts only the given keys: 200 with `items` as the list of payment
 * links (any GET), 401 for any other Authorization header.
 */
export function startKeyServer(keys: string[], items: unknown[] = []): Promise<FakeServer> {
  const accepted = new Set(keys.map((key) => `Bearer ${key}`))
  return startFakeServer((request, response) => {
    if (accepted.has(String(request.headers.authorization))) sendJson(response, 200, envelope(items))
    else sendJson(response, 401, { message: 'Unauthenticated.' })
  })
}
