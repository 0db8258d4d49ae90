import type { TokenInput } from '../../api/types.js'
import { BaseCommand } from '../../cli/base-command.js'
import { createFlags, outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import { TOKEN_FIELDS, TOKEN_VIEW } from '../../resources/tokens.js'

export default class TokenCreate extends BaseCommand<typeof TokenCreate> {
  static summary = 'Tokenize a customer'
  static description =
    'Creates a token for a customer and prints it with its activation_url. On a terminal, missing ' +
    'required flags (--email, --title, --description) are asked for.'

  static examples = [
    '<%= config.bin %> token create --email jane@example.com --title "Card on file" --description "Monthly billing"',
    '<%= config.bin %> token create --email jane@example.com --title Card --description Billing --redirect-url https://shop.example/done --json',
  ]

  static flags = { ...TOKEN_FIELDS.flags, ...createFlags, ...outputFlags }

  async run(): Promise<Result> {
    const fields = TOKEN_FIELDS.fromFlags(this.flags)
    TOKEN_FIELDS.check(fields)
    // On a terminal, a missing key or a refused base URL is reported before any question.
    const early = this.io.canPrompt ? await this.api() : undefined
    await TOKEN_FIELDS.fillMissing(fields, this.io)
    const { api } = early ?? (await this.api())
    const token = await api.createToken(fields as unknown as TokenInput, {
      idempotencyKey: this.flags['idempotency-key'],
    })
    return shown.record(token, TOKEN_VIEW)
  }
}
