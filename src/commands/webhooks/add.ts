import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { WEBHOOK_EVENT_VIEW } from '../../work/account/view.js'
import { addWebhookEvent } from '../../work/account/webhooks.js'

export default class WebhooksAdd extends BaseCommand<typeof WebhooksAdd> {
  static calls: readonly EndpointName[] = ['addWebhookEvent']
  static summary = "Notify a URL of the business's payments"
  static description =
    "Adds a webhook event to the profile's integration: payment.created, to URL, enabled, as the service's " +
    'shop plugins set it. A URL the service does not take: exit 3 under --url. Sent with the access token ' +
    'of `pay login --email`. --json: the event, {"_id", "name", "url", "enabled", "created_at", "updated_at"}.'

  static examples = ['<%= config.bin %> webhooks add https://shop.example/wc-api/swipego_wc_gateway/']

  static args = { url: Args.string({ description: 'The http(s) URL to notify.', required: true }) }

  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const event = await addWebhookEvent({ url: this.args.url }, this.context)
    return shown.record(event, WEBHOOK_EVENT_VIEW)
  }
}
