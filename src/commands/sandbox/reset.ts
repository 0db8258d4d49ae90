import { BaseCommand } from '../../cli/base-command.js'
import { sandboxGlobalFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import { loadLocalStore } from '../../sandbox/index.js'
import type { EndpointName } from '../../shared/endpoints.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static calls: readonly EndpointName[] = ['sandboxReset']
  static summary = 'Empty the sandbox store'
  static description =
    'Deletes sandbox records (tokens, links, subscriptions); seeded packages come back. When a sandbox server ' +
    'answers at the profile\'s base URL (--profile, else $PAY_PROFILE, else the built-in "sandbox" profile; ' +
    "--base-url) and proves it is yours (it keeps its store in $PAY_SANDBOX_DIR), the records of the key's " +
    'business are deleted through it (other ' +
    "businesses' stay); otherwise, for the built-in profile, every record of the local store in $PAY_SANDBOX_DIR. " +
    'The output says which.'

  static examples = [
    '<%= config.bin %> sandbox reset',
    '<%= config.bin %> sandbox reset --base-url http://127.0.0.1:4011 --json',
  ]

  static baseFlags = sandboxGlobalFlags

  async run(): Promise<Result> {
    const where = await this.context.sandboxTarget()
    if (where.server) {
      const done = await where.api.send('sandboxReset')
      const business = typeof done.business_id === 'number' ? done.business_id : null
      return shown.message(
        `The records of business ${business ?? '?'} in the sandbox at ${where.target.baseUrl} are deleted ` +
          "(other businesses' are kept).",
        { reset: true, dir: null, base_url: where.target.baseUrl, business_id: business },
      )
    }
    const { resetSandbox } = await loadLocalStore()
    const { keptAs } = resetSandbox(where.dir)
    return [
      keptAs
        ? shown.warn(`The sandbox store was corrupt or from a newer pay: it was kept as ${keptAs}.`)
        : undefined,
      shown.message(
        `The local sandbox store in ${where.dir} is empty (no sandbox is running at ${where.baseUrl}).`,
        { reset: true, dir: where.dir, base_url: null, business_id: null },
      ),
    ]
  }
}
