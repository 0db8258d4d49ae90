import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { PayError } from '../../errors.js'
import { LINK_VIEW } from '../../resources/links.js'
import { sandboxDir } from '../../sandbox/constants.js'

export default class SandboxPay extends BaseCommand<typeof SandboxPay> {
  static summary = 'Pay a sandbox payment link as the customer would'
  static description = 'Marks the link paid (paid becomes true) in the sandbox store, and prints it.'
  static examples = ['<%= config.bin %> sandbox pay 65a1f0c2e4b0a1b2c3d4e5f6']
  static args = {
    id: Args.string({ description: 'Payment link id (_id).', required: true, ignoreStdin: true }),
  }
  static flags = { ...outputFlags }

  async run(): Promise<void> {
    const { markLinkPaid } = await import('../../sandbox/server.js')
    const link = markLinkPaid(sandboxDir(), this.args.id)
    if (!link) {
      throw new PayError(`No payment link ${this.args.id} in the sandbox.`, { kind: 'not_found' })
    }
    this.out.record(link as Record<string, unknown>, LINK_VIEW)
  }
}
