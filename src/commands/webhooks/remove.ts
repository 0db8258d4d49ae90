import { BaseCommand } from '../../cli/base-command.js'
import { consentFlags, outputFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { WEBHOOK_EVENT_VIEW } from '../../work/account/view.js'
import { removeWebhookEvent } from '../../work/account/webhooks.js'

export default class WebhooksRemove extends BaseCommand<typeof WebhooksRemove> {
  static calls: readonly EndpointName[] = ['listWebhookEvents', 'removeWebhookEvent']
  static summary = "Stop notifying a webhook event's URL, for good"
  static description =
    "Removes webhook event ID of the profile's integration. Shows the profile, base URL and the event, then " +
    'asks; --yes skips the question; without a terminal and without --yes nothing is changed (exit 2); ' +
    '--dry-run shows it and changes nothing. Unknown ID: exit 5. Sent with the access token of `pay login ' +
    '--email`. --json: the event removed.'

  static aliases = ['webhooks:rm']

  static examples = [
    '<%= config.bin %> webhooks remove 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> webhooks remove 65a1f0c2e4b0a1b2c3d4e5f6 --yes',
  ]

  static args = { id: idArg('Webhook event id (_id, from `pay webhooks list`).') }

  static flags = { ...consentFlags('deleted'), ...outputFlags }

  async run(): Promise<Result> {
    const { id, event, removed } = await removeWebhookEvent({ id: this.args.id }, this.context)
    if (!removed) return undefined
    return [
      shown.note(`Removed webhook event ${id}.`),
      shown.record(event ?? { _id: id }, WEBHOOK_EVENT_VIEW),
    ]
  }
}
