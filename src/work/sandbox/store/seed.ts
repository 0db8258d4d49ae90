import fs from 'node:fs'
import { type FieldErrors, PayError, usageError, validationError } from '../../../errors.js'
import type { RunContext, SandboxTarget } from '../../../runtime/context.js'
import { loadLocalStore, MAX_BODY_BYTES } from '../../../sandbox/index.js'
import type { Rec } from '../../../values.js'
import { placeOf } from '../where.js'

/**
 * `pay sandbox seed` and `pay sandbox start --seed`: a fixture file read and parsed (src/sandbox/
 * double/fixtures.ts checks and seeds it), and what was seeded as rows: name, kind, id, result.
 */

const FORMAT = 'A fixture file is JSON: {"tokenizations": [...], "links": [...], "subscriptions": [...]}.'

/**
 * The fixtures in `file` (`-`: stdin) as parsed JSON; what cannot be read or is not JSON is a usage
 * error (exit 2); JSON that is not a fixture file as a whole (no object, nested too deep) is
 * invalid (exit 3), said here, before it goes to a sandbox or the local store, so that both say it alike.
 */
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
  const { parseFixtures, FixtureSyntaxError, fixtureShapeErrors } = await loadLocalStore()
  let fixtures: unknown
  try {
    fixtures = parseFixtures(text)
  } catch (error) {
    if (error instanceof FixtureSyntaxError)
      throw usageError(`${nameOf(file)} is not a fixture file. ${error.message}`, FORMAT)
    throw error
  }
  const wrong = fixtureShapeErrors(fixtures)
  if (wrong) throw invalidFixtures(file, wrong)
  return fixtures
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

/** The records of a seeding as rows: name, kind, id, result. */
export function seededRows(records: unknown): Rec[] {
  if (!Array.isArray(records)) return []
  return records.map((record: Rec) => ({
    name: record.name,
    kind: KINDS[String(record.kind)] ?? record.kind,
    id: record.id,
    result: record.skipped ? 'skipped' : 'created',
  }))
}

/** What a seeding made: each name's id, the records as rows, and where (for the message). */
export interface Seeded {
  /** `{"NAME": "ID", ...}`, as --json prints it. */
  ids: Rec
  /** One a record: name, kind (in words), id, result (created or skipped). */
  rows: Rec[]
  place: string
}

/**
 * `sandbox seed FILE [--once]` (`-`: stdin): the fixtures checked, then seeded through the running
 * sandbox, in one request and one transaction, or into the local store.
 */
export async function seedSandbox(
  options: { file: string; once: boolean },
  context: Pick<RunContext, 'io' | 'sandboxTarget'>,
): Promise<Seeded> {
  const fixtures = await readFixtureFile(options.file, () => context.io.readStdin())
  const where = await context.sandboxTarget()
  const { seeded, place } = await seedFixtures(where, options.file, fixtures, options.once)
  return { ids: seeded.ids as Rec, rows: seededRows(seeded.records), place }
}

/**
 * Seeds `fixtures` (read from `file`) through the running sandbox, in one request and one
 * transaction, or into the local store: what was seeded, and where, for the message.
 */
async function seedFixtures(
  where: SandboxTarget,
  file: string,
  fixtures: unknown,
  once: boolean,
): Promise<{ seeded: Rec; place: string }> {
  if (!where.server) {
    const { seedIn } = await loadLocalStore()
    const done = seedIn(where.dir, where.apiKey, fixtures, { once })
    if (!done.ok) throw invalidFixtures(file, done.errors)
    return { seeded: { ...done.value }, place: placeOf(where) }
  }
  const place = placeOf(where)
  // One request, one transaction: past the server's body limit it would only answer 413.
  const bytes = Buffer.byteLength(JSON.stringify(fixtures))
  if (bytes > MAX_BODY_BYTES) {
    throw usageError(
      `The fixtures in ${nameOf(file)} are ${bytes.toLocaleString('en')} bytes as JSON: the sandbox at ${where.target.baseUrl} takes at most ${MAX_BODY_BYTES.toLocaleString('en')} in one request. Nothing was seeded.`,
      'Split the file, or seed it as the sandbox starts: `pay sandbox start --seed FILE`.',
    )
  }
  try {
    return {
      seeded: await where.api.send('sandboxSeed', { body: fixtures, query: { once: once || undefined } }),
      place,
    }
  } catch (error) {
    if (error instanceof PayError && error.kind === 'validation' && error.errors) {
      throw invalidFixtures(file, error.errors)
    }
    throw error
  }
}
