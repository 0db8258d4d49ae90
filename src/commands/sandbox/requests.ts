import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import type { Rec } from '../../values.js'
import { sandboxRequests } from '../../work/sandbox/controls.js'
import { followRequests, runningSandbox } from '../../work/sandbox/double/double.js'
import { REQUEST_VIEW, requestText, requestTsv } from '../../work/sandbox/double/view.js'

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
    const { api, target } = runningSandbox(await this.context.sandboxTarget(), 'sandbox requests')
    const { limit } = this.context.listScope
    if (this.flags.follow) {
      const options = { out: this.context.out, io: this.context.io, limit, baseUrl: target.baseUrl }
      await followRequests(api, { ...options, timeoutSeconds: this.flags.timeout })
    }
    const requests = await sandboxRequests(api, { limit })
    const show = { text: (r: Rec) => requestText(r, this.context.io.colour), tsv: requestTsv }
    return [
      { kind: 'entries', records: requests, view: REQUEST_VIEW, show },
      requests.length === 0 ? shown.note(`No requests yet in the sandbox at ${target.baseUrl}.`) : undefined,
    ]
  }
}
