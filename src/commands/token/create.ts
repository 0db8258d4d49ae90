import { BaseCommand } from '../../cli/base-command.js'
import { createFlags, fieldFlags, outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { createToken, TOKEN_FIELDS, TOKEN_VIEW } from '../../work/token/create.js'

export default class TokenCreate extends BaseCommand<typeof TokenCreate> {
  static calls: readonly EndpointName[] = ['createToken']
  static summary = 'Tokenize a customer'
  static description =
    'Creates a token for a customer and prints it with its activation_url. On a terminal, missing ' +
    'required flags (--email, --title, --description) are asked for.'

  static examples = [
    '<%= config.bin %> token create --email jane@example.com --title "Card on file" --description "Monthly billing"',
    '<%= config.bin %> token create --email jane@example.com --title Card --description Billing --redirect-url https://shop.example/done --json',
  ]

  static flags = { ...fieldFlags(TOKEN_FIELDS), ...createFlags, ...outputFlags }

  async run(): Promise<Result> {
    const fields = TOKEN_FIELDS.fromFlags(this.flags)
    return shown.record(
      await createToken({ fields, idempotencyKey: this.flags['idempotency-key'] }, this.context),
      TOKEN_VIEW,
    )
  }
}
