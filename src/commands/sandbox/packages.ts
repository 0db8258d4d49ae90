import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { localFlags, outputFlags } from '../../cli/flags.js'
import { PACKAGE_VIEW, sandboxPackages } from '../../cli/sandbox/packages.js'
import { type Result, shown } from '../../render/result.js'
import { SANDBOX_KEY } from '../../sandbox/index.js'

export default class SandboxPackages extends BaseCommand<typeof SandboxPackages, typeof localFlags> {
  static summary = 'List the packages of the sandbox'
  static description =
    'The packages the sandbox seeds for a business, with the ids `pay subs create --package-id` ' +
    'takes: id, name, amount and frequency. They are the same on every start and after a reset; ' +
    'no server is started or asked. Each business (each --key of `pay sandbox start`) has its own; ' +
    'without --key, those of the built-in sandbox key.'

  static examples = [
    '<%= config.bin %> sandbox packages',
    '<%= config.bin %> sandbox packages --json',
    '<%= config.bin %> sandbox packages --key sk_test_shop_a --key sk_test_shop_b',
    '<%= config.bin %> sandbox packages --jq \'.[] | select(.frequency == "monthly") | ._id\'',
  ]

  /** Nothing is sent anywhere: a profile or base URL given must be your own sandbox. */
  static baseFlags = localFlags

  static flags = {
    key: Flags.string({
      description:
        'The API key of a business of the sandbox (repeatable). Default: the built-in sandbox key.',
      multiple: true,
    }),
    ...outputFlags,
  }

  async run(): Promise<Result> {
    return shown.list(sandboxPackages([...new Set(this.flags.key ?? [SANDBOX_KEY])]), PACKAGE_VIEW)
  }
}
