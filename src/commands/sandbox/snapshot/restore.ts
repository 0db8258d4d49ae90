import { BaseCommand } from '../../../cli/base-command.js'
import { localFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import { SNAPSHOT_VIEW, snapshotAction, snapshotNameArg } from '../../../work/sandbox/store/snapshots.js'

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
    const dir = this.context.sandboxDir
    const snapshot = await snapshotAction((s) => s.restoreSnapshot(dir, this.args.name))
    return [
      shown.record({ ...snapshot }, SNAPSHOT_VIEW),
      shown.note(
        `Restored snapshot "${snapshot.name}" (saved ${snapshot.saved_at}) into the sandbox database of ${dir}.`,
      ),
    ]
  }
}
