import { BaseCommand } from '../../../cli/base-command.js'
import { outputFlags, sandboxGlobalFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { ENDPOINT_VIEW, SIGNATURE_VIEW } from '../../../work/sandbox/webhooks/webhook-views.js'
import { listWebhooks } from '../../../work/sandbox/webhooks/webhooks.js'

export default class SandboxWebhooksList extends BaseCommand<typeof SandboxWebhooksList> {
  static calls: readonly EndpointName[] = ['sandboxWebhooks']
  static summary = "Show the business's signature key and webhook endpoints"
  static description =
    "The signature key of the key's business (what your app checks a notification's hash with) and the " +
    'endpoints its notifications go to. Through the sandbox serving the profile, else from the local store ' +
    '($PAY_SANDBOX_DIR). --json: {"signature_key", "endpoints": [{"_id", "url", "events", "enabled"}]}.'

  static aliases = ['sandbox:webhooks:ls']

  static examples = [
    '<%= config.bin %> sandbox webhooks list',
    '<%= config.bin %> sandbox webhooks list --jq .signature_key',
  ]

  static baseFlags = sandboxGlobalFlags
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const { signature_key, endpoints } = await listWebhooks(this.context)
    return [
      shown.record({ signature_key }, SIGNATURE_VIEW, { signature_key, endpoints }),
      shown.related('Endpoints', endpoints, ENDPOINT_VIEW),
    ]
  }
}
