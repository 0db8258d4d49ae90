import { BaseCommand } from '../../cli/base-command.js'
import { sandboxGlobalFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { resetSandbox } from '../../work/sandbox/store/reset.js'
import { keptAsText, resetJson, resetText } from '../../work/sandbox/store/view.js'

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
    const reset = await resetSandbox(this.context)
    const keptAs = reset.server ? undefined : reset.keptAs
    return [
      keptAs ? shown.warn(keptAsText(keptAs)) : undefined,
      shown.message(resetText(reset), resetJson(reset)),
    ]
  }
}
