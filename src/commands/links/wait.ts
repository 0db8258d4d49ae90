import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { globalFlagsButTimeout, outputFlags, waitTimeoutFlag } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { LINK_VIEW } from '../../work/links/view.js'
import { WAIT_UNTIL, type WaitUntil, waitForPayment } from '../../work/links/wait.js'

export default class LinksWait extends BaseCommand<typeof LinksWait, typeof globalFlagsButTimeout> {
  // On the sandbox profile it also hears the customer's attempts through an endpoint of its own.
  static calls: readonly EndpointName[] = [
    'getLink',
    'sandboxWebhooks',
    'addSandboxWebhook',
    'removeSandboxWebhook',
  ]
  static summary = "Wait until a payment link is paid, or the customer's attempt fails, then show it"
  static description =
    'Looks at the link every second at first, then less often (up to every 5 s), and exits 0 with the link ' +
    'printed as `links get` prints it as soon as it is paid (at once if it already is). With the sandbox ' +
    "profile it also hears each payment attempt (the sandbox's notification of it): a failed attempt ends " +
    'the wait with the link and exit 1, saying so, and a pending one is shown and waited through; --until ' +
    'paid waits through failed attempts. --json: the link with "outcome" (paid, failed). Exits 8 when ' +
    '--timeout runs out first, 5 for an unknown id, 4 when the key is refused, 130 on Ctrl-C. While the ' +
    'service fails (5xx, no answer) it keeps waiting. On a terminal one line says what it waits for and ' +
    'for how long; with NO_COLOR or TERM=dumb, a line only when something changes. Each request is ' +
    'limited by PAY_TIMEOUT (seconds, default 30).'

  static examples = [
    '<%= config.bin %> links wait 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> links wait 65a1f0c2e4b0a1b2c3d4e5f6 --timeout 1h --json',
    '<%= config.bin %> links wait 65a1f0c2e4b0a1b2c3d4e5f6 --timeout 0 && echo paid',
    '<%= config.bin %> -p sandbox links wait 65a1f0c2e4b0a1b2c3d4e5f6 --until paid',
  ]

  static args = {
    id: idArg('Payment link id (_id), or its payment URL (…?id=ID).'),
  }

  /** The global flags but --timeout, which is the wait's here: its requests take PAY_TIMEOUT's. */
  static baseFlags = globalFlagsButTimeout

  static flags = {
    until: Flags.string({
      description:
        "What ends the wait: attempt, the customer's attempt, paid or failed (a pending one is waited " +
        'through); paid, a payment only (failed attempts are waited through).',
      options: [...WAIT_UNTIL],
      default: 'attempt',
    }),
    timeout: waitTimeoutFlag({
      // No default here: a default that needs a function to be shown makes oclif load the
      // command for its help. The run's default is WAIT_TIMEOUT.
      description:
        'How long to wait: seconds, as every --timeout (120), or a duration: 30s, 10m, 2h, 1d (ISO 8601 ' +
        'too: PT10M); 0 waits for ever (default: 10m).',
    }),
    ...outputFlags,
  }

  async run(): Promise<Result> {
    const { timeout, until } = this.flags
    const ended = await waitForPayment({ id: this.args.id, timeout, until: until as WaitUntil }, this.context)
    const json = { ...ended.link, outcome: ended.outcome }
    return [shown.record(ended.link, LINK_VIEW, json), ended.failure && shown.fail(ended.failure)]
  }
}
