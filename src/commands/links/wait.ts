import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { globalFlagsButTimeout, outputFlags, waitTimeoutFlag } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { LINK_VIEW } from '../../work/links/view.js'
import { waitForPayment } from '../../work/links/wait.js'

export default class LinksWait extends BaseCommand<typeof LinksWait, typeof globalFlagsButTimeout> {
  static calls: readonly EndpointName[] = ['getLink']
  static summary = 'Wait until a payment link is paid, then show it'
  static description =
    'Looks at the link every second at first, then less often (up to every 5 s), and exits 0 with the link ' +
    'printed as `links get` prints it as soon as it is paid (at once if it already is). Exits 8 when ' +
    '--timeout runs out first, 5 for an unknown id, 4 when the key is refused, 130 on Ctrl-C. While the ' +
    'service fails (5xx, no answer) it keeps waiting. On a terminal one line says what it waits for and ' +
    'for how long; with NO_COLOR or TERM=dumb, a line only when something changes. Each request is ' +
    'limited by PAY_TIMEOUT (seconds, default 30).'

  static examples = [
    '<%= config.bin %> links wait 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> links wait 65a1f0c2e4b0a1b2c3d4e5f6 --timeout 1h --json',
    '<%= config.bin %> links wait 65a1f0c2e4b0a1b2c3d4e5f6 --timeout 0 && echo paid',
  ]

  static args = {
    id: idArg('Payment link id (_id), or its payment URL (…?id=ID).'),
  }

  /** The global flags but --timeout, which is the wait's here: its requests take PAY_TIMEOUT's. */
  static baseFlags = globalFlagsButTimeout

  static flags = {
    until: Flags.string({
      description: 'What to wait for: paid (the only condition for now).',
      options: ['paid'],
      default: 'paid',
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
    const link = await waitForPayment({ id: this.args.id, timeout: this.flags.timeout }, this.context)
    return shown.record(link, LINK_VIEW)
  }
}
