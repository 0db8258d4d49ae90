import { BaseCommand } from '../../../cli/base-command.js'
import { sandboxGlobalFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { setSandboxFaults } from '../../../work/sandbox/controls.js'
import { runningSandbox } from '../../../work/sandbox/double/double.js'

export default class SandboxFaultsClear extends BaseCommand<typeof SandboxFaultsClear> {
  static calls: readonly EndpointName[] = ['clearSandboxFaults']
  static summary = "Remove the fault rules of the key's business from the running sandbox"
  static description =
    'Every request is answered normally again. Acts through the sandbox serving the profile (--profile, else ' +
    '$PAY_PROFILE, else the built-in "sandbox"; --base-url). --json prints [] (the rules left).'

  static examples = ['<%= config.bin %> sandbox faults clear']

  static baseFlags = sandboxGlobalFlags

  async run(): Promise<Result> {
    const { api, target } = runningSandbox(await this.context.sandboxTarget(), 'sandbox faults clear')
    await setSandboxFaults(api, [])
    return shown.nothing(`No fault rules in the sandbox at ${target.baseUrl} now.`)
  }
}
