import { BaseCommand } from '../../../cli/base-command.js'
import { outputFlags, sandboxGlobalFlags } from '../../../cli/flags.js'
import { idArg } from '../../../cli/id-arg.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { ENDPOINT_VIEW, removedText } from '../../../work/sandbox/webhooks/webhook-views.js'
import { removeWebhook } from '../../../work/sandbox/webhooks/webhooks.js'

export default class SandboxWebhooksRemove extends BaseCommand<typeof SandboxWebhooksRemove> {
  static calls: readonly EndpointName[] = ['removeSandboxWebhook']
  static summary = 'Stop sending notifications to a webhook endpoint'
  static description =
    "Removes endpoint ID of the key's business; its deliveries still pending fail, saying the endpoint was " +
    'removed. Unknown ID: exit 5. Through the sandbox serving the profile, else in the local store ' +
    '($PAY_SANDBOX_DIR). --json: the endpoint removed.'

  static aliases = ['sandbox:webhooks:rm']

  static examples = ['<%= config.bin %> sandbox webhooks remove 65a1f0c2e4b0a1b2c3d4e5f6']

  static args = { id: idArg('Endpoint id (_id, from `pay sandbox webhooks list`).') }

  static baseFlags = sandboxGlobalFlags
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const removed = await removeWebhook({ id: this.args.id }, this.context)
    return [shown.note(removedText(removed)), shown.record(removed.endpoint, ENDPOINT_VIEW)]
  }
}
