import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { WEBHOOK_EVENT_VIEW } from '../../work/account/view.js'
import { listWebhookEvents } from '../../work/account/webhooks.js'

export default class WebhooksList extends BaseCommand<typeof WebhooksList> {
  static calls: readonly EndpointName[] = ['listWebhookEvents']
  static summary = "List the webhook events of the profile's integration"
  static description =
    'Where the service notifies the business of its payments: each webhook event (payment.created) with ' +
    'its URL and whether it is enabled, of the business and integration `pay login --email` stored. Sent ' +
    'with the access token; when it has expired, `pay login --email` again (exit 4). --json: ' +
    '[{"_id", "name", "url", "enabled", "created_at", "updated_at"}].'

  static aliases = ['webhooks:ls']

  static examples = ['<%= config.bin %> webhooks list', '<%= config.bin %> webhooks list -p shop --json']

  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    return shown.list(await listWebhookEvents(this.context), WEBHOOK_EVENT_VIEW)
  }
}
