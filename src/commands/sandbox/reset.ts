import { BaseCommand } from '../../cli/base-command.js'
import { sandboxGlobalFlags } from '../../cli/flags.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static summary = 'Empty the sandbox store'
  static description =
    'Deletes every sandbox record (tokens, links, subscriptions) of every business; seeded packages come back. ' +
    "When a sandbox server answers at the profile's base URL (--profile, else $PAY_PROFILE, else the built-in " +
    '"sandbox" profile; --base-url), its store is emptied through it; otherwise, for the built-in profile, the ' +
    'local store in $PAY_SANDBOX_DIR. The output says which store.'

  static examples = [
    '<%= config.bin %> sandbox reset',
    '<%= config.bin %> sandbox reset --base-url http://127.0.0.1:4011 --json',
  ]

  static baseFlags = sandboxGlobalFlags

  async run(): Promise<void> {
    const where = await this.sandboxTarget()
    if (where.server) {
      const done = await where.api.sandboxReset()
      const dir = String(done.dir)
      if (typeof done.kept_as === 'string') {
        this.out.warn(`The sandbox store was corrupt: it was kept as ${done.kept_as}.`)
      }
      if (this.flags.json) this.out.data({ reset: true, dir, base_url: where.target.baseUrl })
      else this.out.note(`The sandbox store in ${dir}, served at ${where.target.baseUrl}, is empty.`)
      return
    }
    const { resetSandbox } = await import('../../sandbox/server.js')
    const { keptAs } = resetSandbox(where.dir)
    if (keptAs) this.out.warn(`The sandbox store was corrupt or from a newer pay: it was kept as ${keptAs}.`)
    if (this.flags.json) this.out.data({ reset: true, dir: where.dir, base_url: null })
    else
      this.out.note(
        `The local sandbox store in ${where.dir} is empty (no sandbox is running at ${where.baseUrl}).`,
      )
  }
}
