import { BaseCommand } from '../../cli/base-command.js'
import { sandboxDir } from '../../sandbox/constants.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static summary = 'Empty the sandbox store'
  static description =
    'Deletes every sandbox record (tokens, links, subscriptions) in $PAY_SANDBOX_DIR. Seeded packages come back.'

  static examples = ['<%= config.bin %> sandbox reset']

  async run(): Promise<void> {
    const { resetSandbox } = await import('../../sandbox/server.js')
    const dir = sandboxDir()
    resetSandbox(dir)
    if (this.flags.json) this.out.data({ reset: true, dir })
    else this.out.note(`Sandbox store in ${dir} is empty.`)
  }
}
