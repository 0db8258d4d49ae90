import type http from 'node:http'

/**
 * The one capped reader of a request's body (the API's JSON, the pages' forms): at most `max`
 * bytes, `tooLarge()` thrown past it, by the announced Content-Length or as the body streams in
 * (the rest of it then read and dropped). Read with the stream's events: an async iterator costs
 * several promises a chunk, on every request.
 */
export function readCapped(
  request: http.IncomingMessage,
  max: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (Number(request.headers['content-length'] ?? 0) > max) return Promise.reject(tooLarge())
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = () => {
      request.off('data', onData)
      request.off('end', onEnd)
      request.off('error', onError)
      request.off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= max) {
        chunks.push(chunk)
        return
      }
      stop()
      request.resume()
      reject(tooLarge())
    }
    const onEnd = () => {
      stop()
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      stop()
      reject(error)
    }
    const onClose = () => onError(new Error('The request was closed before its body ended.'))
    request.on('data', onData)
    request.on('end', onEnd)
    request.on('error', onError)
    request.on('close', onClose)
  })
}
