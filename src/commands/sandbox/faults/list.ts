import { BaseCommand } from '../../../cli/base-command.js'
import { outputFlags, sandboxGlobalFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { listFaults } from '../../../work/sandbox/double/faults.js'
import { FAULT_VIEW, faultsSeedText } from '../../../work/sandbox/double/view.js'

export default class SandboxFaultsList extends BaseCommand<typeof SandboxFaultsList> {
  static calls: readonly EndpointName[] = ['sandboxFaults']
  static summary = "Show the fault rules of the key's business in the running sandbox"
  static description =
    'Each rule with the requests it matched, those it faulted, and for xN how many it will still fault. Acts ' +
    'through the sandbox serving the profile (--profile, else $PAY_PROFILE, else the built-in "sandbox"; ' +
    '--base-url). The seed of the P% rules is said on stderr.'

  static examples = ['<%= config.bin %> sandbox faults list', '<%= config.bin %> sandbox faults list --json']

  static baseFlags = sandboxGlobalFlags
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const faults = await listFaults(this.context)
    return [
      shown.list(faults.rules, FAULT_VIEW),
      faults.rules.length > 0 ? shown.note(faultsSeedText(faults)) : undefined,
    ]
  }
}
