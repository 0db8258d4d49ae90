import { createRequire } from 'node:module'
import type Zlib from 'node:zlib'
import { PayError } from '../errors.js'
import { sanitizeText } from '../values.js'

/**
 * The largest answer pay reads: 50 MB, far beyond a page of any real service. Past it the answer
 * is dropped (exit 6), so a hostile or broken server cannot make pay hold unbounded memory.
 * Counted on the decoded body: a small gzip body that would inflate past it is stopped too.
 */
export const MAX_RESPONSE_BYTES = 50 * 1024 * 1024

/** The encodings pay asks for (it decodes answers itself, readBody). */
export const ACCEPT_ENCODING = 'gzip, deflate, br'

/** Decoders of the encodings pay asks for, by name; deflate as zlib data or raw, as servers send it. */
type Decode = (body: Buffer, options: { maxOutputLength: number }) => Buffer

function decoderFor(coding: string): Decode | undefined {
  // Through require, when an answer is encoded: a dynamic import() cannot run in the bundle.
  const zlib = createRequire(import.meta.url)('node:zlib') as typeof Zlib
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync
  if (coding === 'br') return zlib.brotliDecompressSync
  if (coding !== 'deflate') return undefined
  return (body, options) => {
    try {
      return zlib.inflateSync(body, options)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error
      return zlib.inflateRawSync(body, options)
    }
  }
}

/**
 * A body as text, decoded from its Content-Encoding (the last applied first) to at most `cap`
 * bytes: past that zlib stops with ERR_BUFFER_TOO_LARGE. An encoding pay did not ask for, or
 * data that does not decode, is the service failing.
 */
export function readBody(body: Buffer, contentEncoding: string | undefined, cap: number): string {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
  let decoded = body
  for (const coding of codings.reverse()) {
    const decode = decoderFor(coding)
    const what = `an answer encoded as "${sanitizeText(coding.slice(0, 40))}"`
    if (!decode) {
      throw new PayError(`Unexpected answer from the service: ${what}, which pay did not ask for.`, {
        kind: 'unavailable',
      })
    }
    try {
      decoded = decode(decoded, { maxOutputLength: cap })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error
      throw new PayError(`Unexpected answer from the service: ${what} that does not decode.`, {
        kind: 'unavailable',
      })
    }
  }
  return decoded.toString('utf8')
}
