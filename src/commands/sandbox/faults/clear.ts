import { BaseCommand } from '../../../cli/base-command.js'
import { sandboxGlobalFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { clearFaults } from '../../../work/sandbox/double/faults.js'
import { faultsClearedText } from '../../../work/sandbox/double/view.js'

export default class SandboxFaultsClear extends BaseCommand<typeof SandboxFaultsClear> {
  static calls: readonly EndpointName[] = ['clearSandboxFaults']
  static summary = "Remove the fault rules of the key's business from the running sandbox"
  static description =
    'Every request is answered normally again. Acts through the sandbox serving the profile (--profile, else ' +
    '$PAY_PROFILE, else the built-in "sandbox"; --base-url). --json prints [] (the rules left).'

  static examples = ['<%= config.bin %> sandbox faults clear']

  static baseFlags = sandboxGlobalFlags

  async run(): Promise<Result> {
    return shown.nothing(faultsClearedText(await clearFaults(this.context)))
  }
}
