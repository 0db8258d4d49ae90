import { BaseCommand } from '../../../cli/base-command.js'
import { globalFlags, outputFlags } from '../../../cli/flags.js'
import { SNAPSHOT_VIEW, snapshotAction } from '../../../cli/sandbox/snapshots.js'
import { type Result, shown } from '../../../render/result.js'
import { sandboxDir } from '../../../shared/sandbox-dir.js'

export default class SandboxSnapshotList extends BaseCommand<typeof SandboxSnapshotList> {
  static summary = 'List the snapshots of the sandbox database'
  static description =
    'The snapshots in $PAY_SANDBOX_DIR/snapshots, by name: when each was saved and its size in bytes. ' +
    '--json: [{"name", "saved_at", "bytes"}].'

  static aliases = ['sandbox:snapshot:ls']

  static examples = ['<%= config.bin %> sandbox snapshot list', '<%= config.bin %> sandbox snapshot list -q']

  /** Local files only: no profile, base URL or timeout to take. */
  static baseFlags = { json: globalFlags.json, debug: globalFlags.debug } as unknown as typeof globalFlags

  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const dir = sandboxDir(process.env)
    const snapshots = await snapshotAction((s) => s.listSnapshots(dir))
    return shown.list(
      snapshots.map((snapshot) => ({ ...snapshot })),
      SNAPSHOT_VIEW,
    )
  }
}
