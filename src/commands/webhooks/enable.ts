import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { WEBHOOK_EVENT_VIEW } from '../../work/account/view.js'
import { setWebhookEnabled } from '../../work/account/webhooks.js'

export default class WebhooksEnable extends BaseCommand<typeof WebhooksEnable> {
  static calls: readonly EndpointName[] = ['updateWebhookEvent']
  static summary = 'Turn a webhook event on: its URL is notified again'
  static description =
    "Sets enabled to true on webhook event ID of the profile's integration (PATCH, as the service's shop " +
    'plugins change one). Unknown ID: exit 5. Sent with the access token of `pay login --email`. --json: ' +
    'the event after.'

  static examples = ['<%= config.bin %> webhooks enable 65a1f0c2e4b0a1b2c3d4e5f6']

  static args = { id: idArg('Webhook event id (_id, from `pay webhooks list`).') }

  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    return shown.record(
      await setWebhookEnabled({ id: this.args.id, enabled: true }, this.context),
      WEBHOOK_EVENT_VIEW,
    )
  }
}
