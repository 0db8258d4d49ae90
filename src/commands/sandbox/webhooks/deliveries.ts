import { Flags } from '@oclif/core'
import { BaseCommand } from '../../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../../cli/flags.js'
import { idFlag } from '../../../cli/id-arg.js'
import { type Result, shown } from '../../../render/result.js'
import type { DeliveryState } from '../../../sandbox/index.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { followDeliveries, listDeliveries } from '../../../work/sandbox/webhooks/deliveries.js'
import {
  DELIVERY_VIEW,
  deliveryShow,
  noDeliveriesText,
} from '../../../work/sandbox/webhooks/webhook-views.js'

export default class SandboxWebhooksDeliveries extends BaseCommand<typeof SandboxWebhooksDeliveries> {
  static calls: readonly EndpointName[] = ['sandboxDeliveries']
  static summary = "Show the notifications sent to the business's webhook endpoints"
  static description =
    'Each notification to an endpoint (a delivery), newest last: its state (pending, delivered, failed), the ' +
    'link it tells of, the URL, and each attempt with its time and the HTTP status or what went wrong. ' +
    '--link ID keeps those of one payment link, --state those in one state (with --follow, each as it comes ' +
    'into it). --follow prints each new delivery and each change as it comes, until Ctrl-C (one JSON line each with ' +
    '--json; it needs a running sandbox). Through the sandbox serving the profile, else from the local store ' +
    '($PAY_SANDBOX_DIR). --json: [{"_id", "event", "payment_link_id", "url", "state", "attempts": [{"time", ' +
    '"status", "error"}]}].'

  static examples = [
    '<%= config.bin %> sandbox webhooks deliveries',
    '<%= config.bin %> sandbox webhooks deliveries --follow',
    '<%= config.bin %> sandbox webhooks deliveries --link 65a1f0c2e4b0a1b2c3d4e5f6 --state failed',
    '<%= config.bin %> sandbox webhooks deliveries --state failed --follow',
    '<%= config.bin %> sandbox webhooks deliveries --json --jq \'.[] | select(.state == "failed") | ._id\'',
  ]

  static baseFlags = sandboxGlobalFlags
  static flags = {
    follow: Flags.boolean({
      char: 'f',
      description: 'Keep printing deliveries as they change, until Ctrl-C.',
    }),
    link: idFlag({
      description: 'Only the deliveries of this payment link: its _id, or its payment URL (…?id=ID).',
    }),
    state: Flags.string({
      description: 'Only the deliveries in this state.',
      options: ['delivered', 'failed', 'pending'],
    }),
    limit: Flags.integer({
      description: 'Show the newest N (default: 30 on a terminal, 1,000 when piped).',
      min: 1,
      max: 1000,
    }),
    ...jqFlag,
  }

  async run(): Promise<Result> {
    const { limit } = this.context.listScope
    const { link, state } = this.flags
    const asked = { limit, link, state: state as DeliveryState | undefined }
    if (this.flags.follow) await followDeliveries(asked, this.context)
    const found = await listDeliveries(asked, this.context)
    const show = deliveryShow(this.context.io)
    return [
      { kind: 'entries', records: found.deliveries, view: DELIVERY_VIEW, show },
      found.deliveries.length === 0 ? shown.note(noDeliveriesText(found)) : undefined,
    ]
  }
}
