import { BaseCommand } from '../../../cli/base-command.js'
import { localFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import { saveSnapshot, snapshotNameArg } from '../../../work/sandbox/store/snapshots.js'
import { SNAPSHOT_VIEW, savedText } from '../../../work/sandbox/store/view.js'

export default class SandboxSnapshotSave extends BaseCommand<typeof SandboxSnapshotSave, typeof localFlags> {
  static summary = 'Save the sandbox database as a named snapshot'
  /** It writes a snapshot file of the sandbox. */
  static changesState = true
  static description =
    'Copies the whole sandbox database of $PAY_SANDBOX_DIR (every business, the clock, seeded names) into ' +
    "$PAY_SANDBOX_DIR/snapshots/NAME.db with SQLite's consistent online copy (VACUUM INTO): safe while a " +
    'sandbox server runs on it. A snapshot of that name is replaced. Restore it with ' +
    '`pay sandbox snapshot restore NAME`. --json: {"name", "saved_at", "bytes"}.'

  static examples = ['<%= config.bin %> sandbox snapshot save baseline']

  /** Local files only: a profile or base URL given must be your own sandbox. */
  static baseFlags = localFlags

  static args = { name: snapshotNameArg }

  async run(): Promise<Result> {
    const saved = await saveSnapshot({ name: this.args.name }, this.context)
    return [shown.record(saved.snapshot, SNAPSHOT_VIEW), shown.note(savedText(saved))]
  }
}
