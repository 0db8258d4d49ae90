import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { listen } from '../../work/sandbox/webhooks/listen.js'
import { listenedText } from '../../work/sandbox/webhooks/webhook-views.js'

export default class SandboxListen extends BaseCommand<typeof SandboxListen> {
  static calls: readonly EndpointName[] = ['sandboxWebhooks', 'addSandboxWebhook', 'removeSandboxWebhook']
  static summary = "Receive the running sandbox's notifications here, or forward them to your app"
  static description =
    "Registers an endpoint of its own with the running sandbox for the key's business, for as long as it runs " +
    '(like `stripe listen`). Each notification is checked against the signature key (one that does not ' +
    'verify is refused), then forwarded as it came (body and headers) to --forward-to, whose answer (status, time) is the ' +
    "sandbox's and is printed; without --forward-to it is printed whole and answered 200. One line each; " +
    'with --json one JSON line each: {"event", "payment_link_id", "url", "status", "ms"} (and "body" without ' +
    '--forward-to, "error" when the forward got no answer). Ctrl-C or SIGTERM removes its endpoint; the ' +
    'sandbox stopping ends it (exit 6).'

  static examples = [
    '<%= config.bin %> sandbox listen',
    '<%= config.bin %> sandbox listen --forward-to http://127.0.0.1:3000/webhooks/pay',
    '<%= config.bin %> sandbox listen --forward-to http://127.0.0.1:3000/webhooks/pay --json',
  ]

  static baseFlags = sandboxGlobalFlags
  static flags = {
    'forward-to': Flags.string({
      description:
        "Your app's webhook URL (http:// or https://): each notification is POSTed there as it came.",
    }),
    ...jqFlag,
  }

  async run(): Promise<Result> {
    const listened = await listen({ forwardTo: this.flags['forward-to'] }, this.context)
    return shown.log(listenedText(listened, this.context.io))
  }
}
