import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { type Result, shown } from '../../render/result.js'
import { verifiedText, verifyNotification } from '../../work/account/verify.js'

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static summary = "Check a notification's hash with the profile's signature key"
  static description =
    'Reads a notification an app received (its JSON body, from --file or stdin) and checks it with the ' +
    "signature key `pay login --email` stored, as the service's shop plugins check it, and more strictly: the " +
    'keys they require, exactly the documented keys in their order, each value in its form, and the hash. ' +
    'Exit 0 when it holds (stdout: what it says of the payment); else exit 3, saying which check failed (no ' +
    'signature key, a key missing, or the hash). Nothing is sent. --json: {"valid", "profile", "event", "data"}.'

  static examples = [
    '<%= config.bin %> webhooks verify --file body.json',
    'pbpaste | <%= config.bin %> webhooks verify -p shop --json',
  ]

  static flags = {
    file: Flags.string({ char: 'f', description: 'The notification body (JSON); - or none: stdin.' }),
  }

  async run(): Promise<Result> {
    const verified = await verifyNotification({ file: this.flags.file }, this.context)
    return shown.message(verifiedText(verified), verified)
  }
}
