import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { SUBSCRIPTION_VIEW } from '../../resources/subscriptions.js'

export default class SubsGet extends BaseCommand<typeof SubsGet> {
  static summary = 'Show one subscription with its package'
  static examples = [
    '<%= config.bin %> subs get 65b2a0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> subs get 65b2a0c2e4b0a1b2c3d4e5f6 --json',
  ]

  static args = {
    id: idArg('Subscription id (_id).'),
  }
  static flags = { ...outputFlags }

  async run(): Promise<void> {
    const { api } = await this.api()
    this.out.record(await api.getSubscription(this.args.id), SUBSCRIPTION_VIEW)
  }
}
