import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { seedSandbox } from '../../work/sandbox/store/seed.js'
import { SEEDED_VIEW, seededText } from '../../work/sandbox/store/view.js'

export default class SandboxSeed extends BaseCommand<typeof SandboxSeed> {
  static calls: readonly EndpointName[] = ['sandboxSeed']
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

  async run(): Promise<Result> {
    const seeded = await seedSandbox({ file: this.args.file, once: this.flags.once }, this.context)
    return [
      { kind: 'either', json: shown.data(seeded.ids), text: shown.list(seeded.rows, SEEDED_VIEW) },
      shown.note(`${seededText(seeded.rows)} (${seeded.place}).`),
    ]
  }
}
