import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { followRequests, listRequests } from '../../work/sandbox/double/requests.js'
import { noRequestsText, REQUEST_VIEW, requestShow } from '../../work/sandbox/double/view.js'

export default class SandboxRequests extends BaseCommand<typeof SandboxRequests> {
  static calls: readonly EndpointName[] = ['sandboxRequests']
  static summary = 'Show what your app sent to the running sandbox'
  static description =
    "The last requests of the key's business (the sandbox keeps 1,000 of each), newest last: method, path, " +
    'status, time, Idempotency-Key, the fault it got, and the JSON body, with API keys, fields named like ' +
    'secrets and card-like numbers (13-19 digits) shown as [REDACTED]. The /_sandbox/ routes and the customer ' +
    'pages are not kept. --follow prints new ones as they arrive until Ctrl-C (with --json one JSON line ' +
    'each). Acts through the sandbox serving the profile (--profile, else $PAY_PROFILE, else the built-in ' +
    '"sandbox"; --base-url).'

  static examples = [
    '<%= config.bin %> sandbox requests',
    '<%= config.bin %> sandbox requests --follow',
    '<%= config.bin %> sandbox requests --json --jq \'.[] | select(.method == "POST") | .body\'',
  ]

  static baseFlags = sandboxGlobalFlags
  static flags = {
    follow: Flags.boolean({
      char: 'f',
      description: 'Keep printing new requests as they arrive, until Ctrl-C.',
    }),
    limit: Flags.integer({
      description: 'Show the newest N (default: 30 on a terminal, all kept when piped).',
      min: 1,
      max: 1000,
    }),
    ...jqFlag,
  }

  async run(): Promise<Result> {
    const { limit } = this.context.listScope
    if (this.flags.follow) await followRequests({ limit, timeoutSeconds: this.flags.timeout }, this.context)
    const sent = await listRequests({ limit }, this.context)
    const show = requestShow(this.context.io.colour)
    return [
      { kind: 'entries', records: sent.requests, view: REQUEST_VIEW, show },
      sent.requests.length === 0 ? shown.note(noRequestsText(sent)) : undefined,
    ]
  }
}
