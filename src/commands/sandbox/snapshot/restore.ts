import { BaseCommand } from '../../../cli/base-command.js'
import { localFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import { restoreSnapshot, snapshotNameArg } from '../../../work/sandbox/store/snapshots.js'
import { restoredText, SNAPSHOT_VIEW } from '../../../work/sandbox/store/view.js'

export default class SandboxSnapshotRestore extends BaseCommand<
  typeof SandboxSnapshotRestore,
  typeof localFlags
> {
  static summary = 'Put a snapshot back into the sandbox database'
  /** It replaces the sandbox's database. */
  static changesState = true
  static description =
    'Replaces every record of the sandbox database of $PAY_SANDBOX_DIR (every business, the clock, seeded ' +
    'names) with those of snapshot NAME, in one transaction: a sandbox server running on it answers from the ' +
    'old state or the new one, never a mix, and from the snapshot from its next request on. Unknown NAME: exit 5. ' +
    '--json: {"name", "saved_at", "bytes"}.'

  static examples = ['<%= config.bin %> sandbox snapshot restore baseline']

  /** Local files only: a profile or base URL given must be your own sandbox. */
  static baseFlags = localFlags

  static args = { name: snapshotNameArg }

  async run(): Promise<Result> {
    const restored = await restoreSnapshot({ name: this.args.name }, this.context)
    return [shown.record(restored.snapshot, SNAPSHOT_VIEW), shown.note(restoredText(restored))]
  }
}
