import { Flags } from '@oclif/core'
import type { TokenInput } from '../../api/client.js'
import { BaseCommand, outputFlags } from '../../base-command.js'
import { askForMissing, checkFields, rules } from '../../lib/input.js'
import { TOKEN_VIEW } from '../../render/views.js'

export default class TokenCreate extends BaseCommand<typeof TokenCreate> {
  static summary = 'Tokenize a customer'
  static description =
    'Creates a token for a customer and prints it with its activation_url. On a terminal, missing ' +
    'required flags (--email, --title, --description) are asked for.'

  static examples = [
    '<%= config.bin %> token create --email jane@example.com --title "Card on file" --description "Monthly billing"',
    '<%= config.bin %> token create --email jane@example.com --title Card --description Billing --redirect-url https://shop.example/done --json',
  ]

  static flags = {
    email: Flags.string({ description: 'Customer e-mail address.' }),
    title: Flags.string({ description: 'Title shown to the customer.' }),
    description: Flags.string({ description: 'What the token is for.' }),
    phone: Flags.string({ description: 'Customer phone number.' }),
    'redirect-url': Flags.string({ description: 'Where the customer goes after activating.' }),
    ...outputFlags,
  }

  async run(): Promise<void> {
    const fields: Record<string, string | undefined> = {
      email: this.flags.email,
      title: this.flags.title,
      description: this.flags.description,
      phone_no: this.flags.phone,
      redirect_url: this.flags['redirect-url'],
    }
    checkFields(fields, { email: [rules.email] })
    // On a terminal, a missing key or a refused base URL is reported before any question.
    const early = this.interactive ? await this.api() : undefined
    await askForMissing(
      fields,
      [
        { field: 'email', message: 'Customer e-mail', rules: [rules.email] },
        { field: 'title', message: 'Title' },
        { field: 'description', message: 'Description' },
      ],
      this.interactive,
    )
    for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key]
    const { api } = early ?? (await this.api())
    this.out.record(await api.createToken(fields as unknown as TokenInput), TOKEN_VIEW)
  }
}
