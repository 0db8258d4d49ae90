import { BaseCommand } from '../../cli/base-command.js'
import { consentFlags, fieldFlags, needs, outputFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { SUBSCRIPTION_CHANGE_FIELDS } from '../../work/subs/fields.js'
import { updateSubscription } from '../../work/subs/update.js'
import { SUBSCRIPTION_VIEW } from '../../work/subs/view.js'

export default class SubsUpdate extends BaseCommand<typeof SubsUpdate> {
  static calls: readonly EndpointName[] = ['getSubscription', 'updateSubscription']
  static summary = "Change a subscription's e-mail, phone or status"
  static description =
    'Only the flags given are sent. --status cancelled cancels the subscription, so it is asked ' +
    'about as `pay subs cancel` asks: the same plan, --yes to skip the question, --dry-run to see ' +
    'the plan, and off a terminal without --yes nothing is sent (exit 2). To cancel many ' +
    'subscriptions use `pay subs cancel`.'
  static examples = [
    '<%= config.bin %> subs update 65b2a0c2e4b0a1b2c3d4e5f6 --email new@example.com',
    '<%= config.bin %> subs update 65b2a0c2e4b0a1b2c3d4e5f6 --status cancelled --yes',
  ]

  static args = {
    id: idArg('Subscription id (_id).'),
  }
  static flags = {
    ...fieldFlags(SUBSCRIPTION_CHANGE_FIELDS),
    yes: consentFlags('cancelled').yes,
    'dry-run': { ...consentFlags('cancelled')['dry-run'], ...needs('status') },
    ...outputFlags,
  }

  async run(): Promise<Result> {
    const changes = SUBSCRIPTION_CHANGE_FIELDS.fromFlags(this.flags)
    const updated = await updateSubscription({ id: this.args.id, changes }, this.context)
    return updated && shown.record(updated, SUBSCRIPTION_VIEW)
  }
}
