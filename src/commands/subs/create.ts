import type { SubscriptionInput } from '../../api/types.js'
import { BaseCommand } from '../../cli/base-command.js'
import { createFlags, outputFlags } from '../../cli/flags.js'
import { sandboxPackages } from '../../cli/sandbox/packages.js'
import { type Result, shown } from '../../render/result.js'
import { packageChoice, SUBSCRIPTION_FIELDS, SUBSCRIPTION_VIEW } from '../../resources/subscriptions.js'

export default class SubsCreate extends BaseCommand<typeof SubsCreate> {
  static summary = 'Subscribe a customer to a package'
  static description =
    'Creates a subscription (status "created") and prints it with its package. On a terminal, ' +
    'missing --package-id and --email are asked for; with the sandbox profile the package is picked ' +
    'from its seeded packages. `pay sandbox packages` lists them (ids to give --package-id).'

  static examples = [
    '<%= config.bin %> subs create --package-id 6a1b2c3d4e5f6a7b8c9d0e1f --email jane@example.com',
    '<%= config.bin %> subs create --package-id 6a1b2c3d4e5f6a7b8c9d0e1f --email jane@example.com --phone "+44 20 7946 0000" --json',
  ]

  static flags = { ...SUBSCRIPTION_FIELDS.flags, ...createFlags, ...outputFlags }

  async run(): Promise<Result> {
    const fields = SUBSCRIPTION_FIELDS.fromFlags(this.flags)
    SUBSCRIPTION_FIELDS.check(fields)
    // On a terminal, a missing key or a refused base URL is reported before any question.
    const early = this.io.canPrompt ? await this.api() : undefined
    // With the sandbox profile, its seeded packages are the choices: no id to look up.
    const offered = early?.sandboxKey ? sandboxPackages([early.sandboxKey]).map(packageChoice) : undefined
    await SUBSCRIPTION_FIELDS.fillMissing(fields, this.io, { choices: { package_id: offered ?? [] } })
    const { api } = early ?? (await this.api())
    const subscription = await api.createSubscription(fields as unknown as SubscriptionInput, {
      idempotencyKey: this.flags['idempotency-key'],
    })
    return shown.record(subscription, SUBSCRIPTION_VIEW)
  }
}
