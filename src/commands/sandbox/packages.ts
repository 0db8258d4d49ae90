import { BaseCommand } from '../../cli/base-command.js'
import { localFlags, outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import { PACKAGE_VIEW } from '../../runtime/sandbox/packages.js'
import { sandboxKeyFlags } from '../../work/sandbox/start/keys.js'
import { listSandboxPackages } from '../../work/sandbox/start/packages.js'

export default class SandboxPackages extends BaseCommand<typeof SandboxPackages, typeof localFlags> {
  static summary = 'List the packages of the sandbox'
  static description =
    'The packages the sandbox seeds for a business, with the ids `pay subs create --package-id` ' +
    'takes: id, name, amount and frequency. They are the same on every start and after a reset; ' +
    'no server is started or asked. Each business (each key of `pay sandbox start`) has its own; ' +
    'the keys are taken as `sandbox start` takes them: --key and --key-file, else PAY_SANDBOX_KEYS, ' +
    "else the sandbox directory's own key."

  static examples = [
    '<%= config.bin %> sandbox packages',
    '<%= config.bin %> sandbox packages --json',
    '<%= config.bin %> sandbox packages --key-file ~/.config/pay/sandbox-keys',
    '<%= config.bin %> sandbox packages --jq \'.[] | select(.frequency == "monthly") | ._id\'',
  ]

  /** Nothing is sent anywhere: a profile or base URL given must be your own sandbox. */
  static baseFlags = localFlags

  static flags = {
    ...sandboxKeyFlags,
    ...outputFlags,
  }

  async run(): Promise<Result> {
    const options = { key: this.flags.key, keyFile: this.flags['key-file'] }
    const { packages, keyNote } = listSandboxPackages(options, this.context)
    return [keyNote ? shown.warn(keyNote) : undefined, shown.list(packages, PACKAGE_VIEW)]
  }
}
