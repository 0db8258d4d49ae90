import { Args } from '@oclif/core'
import { BaseCommand } from '../../../cli/base-command.js'
import { outputFlags, sandboxGlobalFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { addedText, ENDPOINT_VIEW } from '../../../work/sandbox/webhooks/webhook-views.js'
import { addWebhook } from '../../../work/sandbox/webhooks/webhooks.js'

export default class SandboxWebhooksAdd extends BaseCommand<typeof SandboxWebhooksAdd> {
  static calls: readonly EndpointName[] = ['addSandboxWebhook']
  static summary = "Send the sandbox's payment notifications to a URL (a webhook endpoint)"
  static description =
    "Adds a webhook endpoint to the key's business: every payment attempt (a paid or failed payment, on the " +
    "payment page, `pay sandbox pay` or the library) is POSTed there as JSON, signed with the business's " +
    'signature key (`pay sandbox webhooks list`), retried until answered 2xx, 3 attempts in all. A URL there ' +
    'already answers its endpoint. http:// and https:// only (else exit 3). Through the sandbox serving the ' +
    'profile, else in the local store ($PAY_SANDBOX_DIR). --json: {"_id", "url", "events", "enabled"}.'

  static examples = [
    '<%= config.bin %> sandbox webhooks add http://127.0.0.1:3000/webhooks/pay',
    '<%= config.bin %> sandbox webhooks add https://shop.test/ipn --json',
  ]

  static args = {
    url: Args.string({ description: 'Where notifications go: an http:// or https:// URL.', required: true }),
  }

  /** A URL the sandbox refuses is named by its field, `url`. */
  static fieldsAsSent = true

  static baseFlags = sandboxGlobalFlags
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const added = await addWebhook({ url: this.args.url }, this.context)
    return [shown.note(addedText(added)), shown.record(added.endpoint, ENDPOINT_VIEW)]
  }
}
