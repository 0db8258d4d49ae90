import fs from 'node:fs'
import path from 'node:path'

/**
 * A recognisable API key, and a scanner that finds it, or any 8 consecutive characters of
 * its secret part, in bytes pay wrote: stdout, stderr and every file it may have touched.
 * The needles are searched as UTF-8/Latin-1 bytes and as UTF-16LE (how V8 stores two-byte
 * strings, e.g. in a code cache or a heap snapshot).
 */
export const CANARY = 'sk_live_CANARY_7f3e9d2c1b0a'
/** The part of the key that is secret: everything after the `sk_live_` prefix. */
export const CANARY_SECRET = CANARY.slice('sk_live_'.length)
export const PARTIAL_LENGTH = 8

/** Every 8-character window of the secret part, plus the whole key. */
export const NEEDLES: string[] = [
  CANARY,
  ...Array.from({ length: CANARY_SECRET.length - PARTIAL_LENGTH + 1 }, (_, i) =>
    CANARY_SECRET.slice(i, i + PARTIAL_LENGTH),
  ),
]

const NEEDLE_BYTES = NEEDLES.flatMap((needle) => [
  { needle, encoding: 'utf8', bytes: Buffer.from(needle, 'utf8') },
  { needle, encoding: 'utf16le', bytes: Buffer.from(needle, 'utf16le') },
])

/** The needles found in `bytes`, as "needle (encoding) at offset". */
export function findCanary(bytes: Buffer | string): string[] {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes
  const hits: string[] = []
  for (const { needle, encoding, bytes: pattern } of NEEDLE_BYTES) {
    const at = buffer.indexOf(pattern)
    if (at !== -1) hits.push(`${JSON.stringify(needle)} (${encoding}) at ${at}`)
  }
  return hits
}

/** Every regular file under `dir`, recursively (symbolic links not followed). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  const files: string[] = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) files.push(...filesUnder(full))
    else if (entry.isFile()) files.push(full)
  }
  return files
}

/** Collects what was scanned and every hit, for one assertion at the end and the figures. */
export class LeakScan {
  readonly hits: string[] = []
  bytes = 0
  streams = 0
  files = 0

  /** One output stream of one run. */
  output(label: string, text: string): void {
    this.streams += 1
    this.bytes += Buffer.byteLength(text)
    for (const hit of findCanary(text)) this.hits.push(`${label}: ${hit}`)
  }

  /** Every file under `dir` but those `skip` accepts (the config file that holds the key by design). */
  tree(dir: string, skip: (file: string) => boolean = () => false): string[] {
    const scanned: string[] = []
    for (const file of filesUnder(dir)) {
      if (skip(file)) continue
      const bytes = fs.readFileSync(file)
      this.files += 1
      this.bytes += bytes.length
      scanned.push(file)
      for (const hit of findCanary(bytes)) this.hits.push(`${file}: ${hit}`)
    }
    return scanned
  }
}
