import { BaseCommand } from '../../../cli/base-command.js'
import { localFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import { deleteSnapshot, snapshotNameArg } from '../../../work/sandbox/store/snapshots.js'
import { deletedText } from '../../../work/sandbox/store/view.js'

export default class SandboxSnapshotDelete extends BaseCommand<
  typeof SandboxSnapshotDelete,
  typeof localFlags
> {
  static summary = 'Delete a snapshot of the sandbox database'
  /** It deletes a snapshot file. */
  static changesState = true
  static description =
    'Deletes $PAY_SANDBOX_DIR/snapshots/NAME.db; the sandbox database itself is not touched. Unknown NAME: ' +
    'exit 5. --json: the snapshot deleted, {"name", "saved_at", "bytes"}.'

  static aliases = ['sandbox:snapshot:rm']

  static examples = ['<%= config.bin %> sandbox snapshot delete baseline']

  /** Local files only: a profile or base URL given must be your own sandbox. */
  static baseFlags = localFlags

  static args = { name: snapshotNameArg }

  async run(): Promise<Result> {
    const deleted = await deleteSnapshot({ name: this.args.name }, this.context)
    return shown.message(deletedText(deleted), deleted.snapshot)
  }
}
