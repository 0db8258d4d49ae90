import type http from 'node:http'

/**
 * The one capped reader of a request's body (the API's JSON, the pages' forms): at most `max`
 * bytes, `tooLarge()` thrown past it, by the announced Content-Length or as the body streams in.
 */
export async function readCapped(
  request: http.IncomingMessage,
  max: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (Number(request.headers['content-length'] ?? 0) > max) throw tooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > max) throw tooLarge()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
