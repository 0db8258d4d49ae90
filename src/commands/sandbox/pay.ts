import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags, sandboxGlobalFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import { OUTCOMES, type Outcome } from '../../sandbox/index.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { LINK_VIEW } from '../../work/links/view.js'
import { payLink } from '../../work/sandbox/double/pay.js'
import { paidText } from '../../work/sandbox/double/view.js'

export default class SandboxPay extends BaseCommand<typeof SandboxPay> {
  static calls: readonly EndpointName[] = [
    'getLink',
    'sandboxPay',
    'sandboxPending',
    'sandboxCancel',
    'sandboxFail',
  ]
  static summary =
    'Pay a sandbox payment link as the customer would (or leave it pending, cancel, or fail it)'
  static description =
    'Marks the link paid (paid becomes true, updated_at moves; paying twice changes nothing) and prints it; ' +
    '--outcome pending, cancelled or failed plays a payment left pending, the customer cancelling, or the payment ' +
    'failing: the link stays unpaid (and payable). stderr says where the customer would be sent (redirect_url with ' +
    "id, status and the attempt's fields added, none the redirect_url has already); --json prints " +
    '{"outcome", "link", "redirect_to"}. ' +
    "When a sandbox server answers at the profile's base URL (--profile, else $PAY_PROFILE, else the built-in " +
    '"sandbox" profile; --base-url) and proves it is yours (it keeps its store in $PAY_SANDBOX_DIR), a link of ' +
    "the key's business is paid through it, so an app using that server sees the change; otherwise, for the " +
    'built-in profile, in the local sandbox store ($PAY_SANDBOX_DIR). stderr says which. Paying and a failed ' +
    "payment notify the business's webhook endpoints (`pay sandbox webhooks`), a pending one with payment_status 2; " +
    'in the local store the first ' +
    'attempt of each is made before the command ends, and stderr says what came of it.'

  static examples = [
    '<%= config.bin %> sandbox pay 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> sandbox pay 65a1f0c2e4b0a1b2c3d4e5f6 --outcome cancelled --json',
    '<%= config.bin %> sandbox pay 65a1f0c2e4b0a1b2c3d4e5f6 --outcome pending',
    '<%= config.bin %> sandbox pay 65a1f0c2e4b0a1b2c3d4e5f6 --base-url http://127.0.0.1:4011',
  ]

  static args = {
    id: idArg('Payment link id (_id), or its payment URL (…?id=ID).'),
  }

  static baseFlags = sandboxGlobalFlags
  static flags = {
    outcome: Flags.string({
      description:
        'What the customer does: pay, leave the payment pending, cancel, or fail it (all but paid leave it unpaid).',
      options: [...OUTCOMES],
      default: 'paid',
    }),
    ...outputFlags,
  }

  async run(): Promise<Result> {
    const paid = await payLink({ id: this.args.id, outcome: this.flags.outcome as Outcome }, this.context)
    const { settled } = paid
    return [
      shown.note(paidText(paid)),
      ...paid.notified.map(shown.notice),
      shown.record(settled.link, LINK_VIEW, settled),
    ]
  }
}
