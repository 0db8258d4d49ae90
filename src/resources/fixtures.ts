import fs from 'node:fs'
import { type FieldErrors, usageError, validationError } from '../errors.js'
import type { View } from '../render/views.js'
import type { Rec } from '../values.js'

/**
 * `pay sandbox seed` and `pay sandbox start --seed`: a fixture file read and parsed (src/sandbox/
 * fixtures.ts checks and seeds it), and what was seeded as rows: NAME, KIND, ID, RESULT.
 */
export const SEEDED_VIEW: View = {
  noun: 'seeded record',
  plural: 'seeded records',
  listColumns: ['name', 'kind', 'id', 'result'],
  recordFields: ['name', 'kind', 'id', 'result'],
  idField: 'id',
}

const FORMAT = 'A fixture file is JSON: {"tokenizations": [...], "links": [...], "subscriptions": [...]}.'

/** The fixtures in `file` (`-`: stdin) as parsed JSON; what cannot be read or is not JSON is a usage error (exit 2). */
export async function readFixtureFile(file: string, readStdin: () => Promise<string>): Promise<unknown> {
  let text: string
  if (file === '-') text = await readStdin()
  else {
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw usageError(
        `Cannot read the fixture file ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}.`,
      )
    }
  }
  const { parseFixtures, FixtureSyntaxError } = await import('../sandbox/fixtures.js')
  try {
    return parseFixtures(text)
  } catch (error) {
    if (error instanceof FixtureSyntaxError)
      throw usageError(`${nameOf(file)} is not a fixture file. ${error.message}`, FORMAT)
    throw error
  }
}

const nameOf = (file: string) => (file === '-' ? 'stdin' : file)

/** The errors of an invalid fixture file (exit 3): each under its entry and field, `links[2].amount`. */
export const invalidFixtures = (file: string, errors: FieldErrors) =>
  validationError(errors, `The fixtures in ${nameOf(file)} are invalid: nothing was seeded.`)

const KINDS: Record<string, string> = {
  tokenization: 'tokenization',
  payment_link: 'payment link',
  subscription: 'subscription',
}

/** The records of a seeding as rows of SEEDED_VIEW. */
export function seededRows(records: unknown): Rec[] {
  if (!Array.isArray(records)) return []
  return records.map((record: Rec) => ({
    name: record.name,
    kind: KINDS[String(record.kind)] ?? record.kind,
    id: record.id,
    result: record.skipped ? 'skipped' : 'created',
  }))
}

/** `3 records seeded, 1 skipped (seeded before)`. */
export function seededText(records: Rec[]): string {
  const skipped = records.filter((record) => record.result !== 'created').length
  const made = records.length - skipped
  const text = `${made} ${made === 1 ? 'record' : 'records'} seeded`
  return skipped === 0 ? text : `${text}, ${skipped} skipped (seeded before)`
}
