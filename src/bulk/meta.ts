import { usageError } from '../errors.js'
import { sha256Hex } from '../shared/crypto.js'
import { readPrivate, UnsafeFileError, writePrivateAtomic } from '../shared/private-file.js'

/**
 * A report's run, kept beside it in `REPORT.meta.json`: the command, where it sent (profile,
 * base URL), its input (where from, how many, a hash of them), when it started and, once it
 * ended, a closing mark. A report whose meta has no closing mark belongs to a run that was
 * killed: it may lack every id the run never reached, so --resume needs the input again.
 */

export const metaFile = (report: string) => `${report}.meta.json`

export interface RunInput {
  /** How the input was given, as flags to give it again: `--from-file ids.txt`, `-`, `--from-csv a.csv`. */
  source: string
  /** Distinct ids, or CSV rows. */
  count: number
  /** SHA-256 of the ids (distinct, sorted, one a line), or of the CSV file's text. */
  sha256: string
}

export interface RunMeta {
  format: 'pay-report/2'
  /** `pay subs cancel`, `pay links delete`, `pay subs delete`, `pay links create --from-csv`. */
  command: string
  profile: string
  base_url: string
  input: RunInput
  /** UTC, ISO 8601. */
  started_at: string
  /** The closing mark: when the run ended (done, partly done or interrupted). */
  finished_at?: string
  /** How it ended: done, partial, interrupted, stopped (the service went down), refused (the key). */
  outcome?: string
  /** Results by status, over the whole report. */
  counts?: Record<string, number>
}

/** The input of a run by ids: its hash is of the set, so the same ids in another order match. */
export function idsInput(source: string, ids: string[]): RunInput {
  const distinct = [...new Set(ids)].sort()
  return { source, count: distinct.length, sha256: sha256(distinct.join('\n')) }
}

export const sha256 = (text: string) => sha256Hex(text)

/** The meta beside `report`, or undefined when there is none (a report of an earlier pay). */
export function readMeta(report: string, flag: string): RunMeta | undefined {
  const file = metaFile(report)
  let text: string | undefined
  try {
    text = readPrivate(file)
  } catch (error) {
    const reason = error instanceof UnsafeFileError ? error.message : (error as Error).message
    throw usageError(`${flag}: cannot read ${file}: ${reason}.`)
  }
  if (text === undefined) return undefined
  try {
    const meta = JSON.parse(text) as RunMeta
    if (typeof meta.command === 'string' && typeof meta.input === 'object' && meta.input !== null) return meta
  } catch {}
  throw usageError(
    `${flag}: ${file} is not the description of a run pay wrote.`,
    'It sits beside the report; move it away to resume without the checks it allows.',
  )
}

export function writeMeta(report: string, meta: RunMeta): void {
  writePrivateAtomic(metaFile(report), `${JSON.stringify(meta, null, 2)}\n`)
}

/**
 * Whether a run went to the same service as this one: the same profile and base URL. A sandbox
 * that ran inside a command had a port of its own each time: the same profile is enough there.
 */
export function sameTarget(a: { profile: string; baseUrl: string }, b: { profile: string; baseUrl: string }) {
  if (a.profile !== b.profile) return false
  if (IN_PROCESS.test(a.baseUrl) || IN_PROCESS.test(b.baseUrl)) return true
  return bareUrl(a.baseUrl) === bareUrl(b.baseUrl)
}
const IN_PROCESS = / \(sandbox, in-process\)$/
const bareUrl = (url: string) => url.replace(IN_PROCESS, '').replace(/\/+$/, '')
