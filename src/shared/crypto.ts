import type Crypto from 'node:crypto'
import { createRequire } from 'node:module'

let crypto: typeof Crypto | undefined

/** node:crypto, loaded with the first random value: a command that needs none never pays its start-up (a few ms). */
export function nodeCrypto(): typeof Crypto {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto
  return crypto
}

/** A random UUID (an Idempotency-Key, a journal's change id). */
export const randomUuid = (): string => nodeCrypto().randomUUID()

/** `bytes` random bytes as hex (a temporary file's name). */
export const randomHex = (bytes: number): string => nodeCrypto().randomBytes(bytes).toString('hex')

/** The sha256 of `text`, in hex. */
export const sha256Hex = (text: string): string =>
  nodeCrypto().createHash('sha256').update(text).digest('hex')
