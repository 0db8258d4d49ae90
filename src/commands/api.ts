import { Args } from '@oclif/core'
import { BaseCommand } from '../cli/base-command.js'
import { jqFlag } from '../cli/flags.js'
import { type Result, type Shown, shown } from '../render/result.js'
import { API_FLAGS, sendApiRequest } from '../work/api/request.js'

export default class Api extends BaseCommand<typeof Api> {
  static summary = 'Send any request to the service, as pay sends its own'
  /** It sends any method to any path: a POST, PUT or DELETE changes the service. */
  static changesState = true
  static description =
    'Sends a request to PATH under the base URL of the profile, with its key, timeout, retries ' +
    '(GET, PUT and DELETE only), redirect refusal and --debug trace, and prints the answer as JSON: ' +
    'pretty on a terminal, compact when piped. The exit code is that of the status (a 404 exits 5, ' +
    'and its body is still printed). A POST or PATCH carries an Idempotency-Key and is sent once. ' +
    'Fields go into a JSON body (for a GET, into the query string): -f sends text, -F sends true, ' +
    'false, null and numbers as such and reads @file (or @- for stdin). The key goes only to the ' +
    "profile's base URL: a URL on another origin is refused, and no Authorization header can be given."

  static examples = [
    '<%= config.bin %> api /payment-links',
    '<%= config.bin %> api /payment-links --paginate --jq ".[] | select(.paid) | ._id"',
    '<%= config.bin %> api /payment-links -f email=jane@example.com -f currency=EUR -f amount=25.50 -f title="Invoice 1042"',
    '<%= config.bin %> api -X PUT /subscriptions/65b2a0c2e4b0a1b2c3d4e5f6 -f status=cancel',
    '<%= config.bin %> api -X POST /subscriptions --input subscription.json -i',
    '<%= config.bin %> api /payment-links -X GET -F per_page=200 -F page=2',
  ]

  static fieldsAsSent = true

  static args = {
    path: Args.string({
      description: 'Path under the base URL (/payment-links), with a query if any; or a URL on its origin.',
      required: true,
      ignoreStdin: true,
    }),
  }

  static flags = { ...API_FLAGS, ...jqFlag }

  async run(): Promise<Result> {
    const { flags } = this
    const request = {
      path: this.args.path,
      method: flags.method,
      rawFields: flags['raw-field'],
      fields: flags.field,
      headers: flags.header,
      input: flags.input,
    }
    const got = await sendApiRequest({ ...request, paginate: flags.paginate }, this.context)
    const heads: Shown[] = flags.include ? got.responses.map((response) => ({ kind: 'head', response })) : []
    return [
      ...heads,
      got.body ? { kind: 'document', value: got.body.value } : undefined,
      got.error ? shown.fail(got.error) : undefined,
    ]
  }
}
