import { BaseCommand } from '../../../cli/base-command.js'
import { jqFlag, outputFlags, sandboxGlobalFlags } from '../../../cli/flags.js'
import { idArg } from '../../../cli/id-arg.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { DELIVERY_VIEW, deliveryShow, resendingText } from '../../../work/sandbox/webhooks/webhook-views.js'
import { resendDelivery } from '../../../work/sandbox/webhooks/webhooks.js'

export default class SandboxWebhooksResend extends BaseCommand<typeof SandboxWebhooksResend> {
  static calls: readonly EndpointName[] = ['resendSandboxDelivery']
  static summary = 'Send a notification again'
  static description =
    'Makes delivery ID pending again with 3 more attempts, the first at once: the same body, byte for byte ' +
    '(the same attempt_id). Unknown ID: exit 5. Through the sandbox serving the profile; with none running, ' +
    'in the local store ($PAY_SANDBOX_DIR), where the first attempt is made before the command ends and ' +
    'stderr says what came of it. Shown as `pay sandbox webhooks deliveries` shows a delivery (on a ' +
    'terminal its attempts in words, piped one TSV line); --json: the delivery.'

  static examples = ['<%= config.bin %> sandbox webhooks resend 65a1f0c2e4b0a1b2c3d4e5f6']

  static args = { id: idArg('Delivery id (_id, from `pay sandbox webhooks deliveries`).') }

  static baseFlags = sandboxGlobalFlags
  static flags = { ...jqFlag, quiet: outputFlags.quiet }

  async run(): Promise<Result> {
    const resent = await resendDelivery({ id: this.args.id }, this.context)
    return [
      resent.server ? shown.note(resendingText(resent)) : resent.notified.map(shown.notice),
      {
        kind: 'either',
        json: shown.record(resent.delivery, DELIVERY_VIEW),
        text: {
          kind: 'entries',
          records: [resent.delivery],
          view: DELIVERY_VIEW,
          show: deliveryShow(this.context.io),
        },
      },
    ]
  }
}
