import { BaseCommand } from '../../../cli/base-command.js'
import { localFlags, outputFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import { listSnapshots } from '../../../work/sandbox/store/snapshots.js'
import { SNAPSHOT_VIEW } from '../../../work/sandbox/store/view.js'

export default class SandboxSnapshotList extends BaseCommand<typeof SandboxSnapshotList, typeof localFlags> {
  static summary = 'List the snapshots of the sandbox database'
  static description =
    'The snapshots in $PAY_SANDBOX_DIR/snapshots, by name: when each was saved and its size in bytes. ' +
    '--json: [{"name", "saved_at", "bytes"}].'

  static aliases = ['sandbox:snapshot:ls']

  static examples = ['<%= config.bin %> sandbox snapshot list', '<%= config.bin %> sandbox snapshot list -q']

  /** Local files only: a profile or base URL given must be your own sandbox. */
  static baseFlags = localFlags

  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    return shown.list(await listSnapshots(this.context), SNAPSHOT_VIEW)
  }
}
