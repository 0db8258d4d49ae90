import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../cli/flags.js'
import { PayError, usageError } from '../../errors.js'
import {
  invalidFixtures,
  readFixtureFile,
  SEEDED_VIEW,
  seededRows,
  seededText,
} from '../../resources/fixtures.js'
import type { Rec } from '../../values.js'

export default class SandboxSeed extends BaseCommand<typeof SandboxSeed> {
  static summary = 'Seed the sandbox with named records from a fixture file'
  static description =
    'FILE (or - for stdin) is JSON: {"tokenizations": [...], "links": [...], "subscriptions": [...]}, each entry ' +
    'the API\'s request fields plus a "name" of its own; a link may say "paid": true; a subscription names its ' +
    'package by slug ("package": "monthly") or id and may say "status": "cancel". Every entry is checked by the ' +
    "API's rules first: one invalid entry fails the file (exit 3, naming links[2] and the field) and nothing is " +
    'kept. Prints each name with the id made; --json: {"NAME": "ID", ...}. Seeding twice makes the records ' +
    'twice, unless --once (names seeded before are skipped, their ids printed). Acts through the sandbox ' +
    "serving the profile's base URL when one runs (the key's business), otherwise on the local store, as " +
    '`pay sandbox pay` does.'

  static examples = [
    '<%= config.bin %> sandbox seed fixtures.json',
    '<%= config.bin %> sandbox seed fixtures.json --once --json',
    '<%= config.bin %> sandbox seed fixtures.json --jq \'."inv-42"\'',
  ]

  static args = {
    file: Args.string({
      description: 'Fixture file (JSON), or - for stdin.',
      required: true,
      ignoreStdin: true,
    }),
  }

  static baseFlags = sandboxGlobalFlags
  static flags = {
    once: Flags.boolean({ description: 'Skip the names seeded before (since the last reset).' }),
    ...jqFlag,
  }

  /** Errors name entries and fields of the file (`links[2].amount`), not flags. */
  static fieldsAsSent = true

  async run(): Promise<void> {
    const { file } = this.args
    const fixtures = await readFixtureFile(file, () => this.io.readStdin())
    const where = await this.sandboxTarget()
    let seeded: Rec
    let place: string
    if (where.server) {
      place = `the sandbox at ${where.target.baseUrl}`
      // One request, one transaction: past the server's body limit it would only answer 413.
      const { MAX_BODY_BYTES } = await import('../../sandbox/request.js')
      const bytes = Buffer.byteLength(JSON.stringify(fixtures))
      if (bytes > MAX_BODY_BYTES) {
        throw usageError(
          `The fixtures in ${file === '-' ? 'stdin' : file} are ${bytes.toLocaleString('en')} bytes as JSON: the sandbox at ${where.target.baseUrl} takes at most ${MAX_BODY_BYTES.toLocaleString('en')} in one request. Nothing was seeded.`,
          'Split the file, or seed it as the sandbox starts: `pay sandbox start --seed FILE`.',
        )
      }
      try {
        seeded = await where.api.sandboxSeed(fixtures, this.flags.once)
      } catch (error) {
        if (error instanceof PayError && error.kind === 'validation' && error.errors) {
          throw invalidFixtures(file, error.errors)
        }
        throw error
      }
    } else {
      place = `the local sandbox store ${where.dir}`
      const { seedIn } = await import('../../sandbox/fixtures.js')
      const done = seedIn(where.dir, where.apiKey, fixtures, { once: this.flags.once, origin: where.baseUrl })
      if (!done.ok) throw invalidFixtures(file, done.errors)
      seeded = { ...done.value }
    }
    const rows = seededRows(seeded.records)
    if (this.flags.json || this.flags.jq !== undefined) this.out.data(seeded.ids)
    else this.out.list(rows, SEEDED_VIEW)
    this.out.note(`${seededText(rows)} (${place}).`)
  }
}
