import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { localFlags, needs } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import { DEFAULT_SANDBOX_PORT } from '../../sandbox/index.js'
import { startDoubleFlags } from '../../work/sandbox/double/flags.js'
import { sandboxAccountFlags } from '../../work/sandbox/start/account.js'
import { sandboxKeyFlags } from '../../work/sandbox/start/keys.js'
import { serveSandbox } from '../../work/sandbox/start/serve.js'
import { stoppedText } from '../../work/sandbox/start/view.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart, typeof localFlags> {
  static summary = 'Serve the local sandbox over HTTP'
  static description =
    'Runs the sandbox service until Ctrl-C, for pay and for any HTTP client (curl, your own app). ' +
    'Each key is a business of its own: from --key and --key-file (one a line, a 0600 file of yours), ' +
    "else PAY_SANDBOX_KEYS (comma-separated), else the sandbox directory's own key: random, made the first " +
    'time and kept in sandbox.key there (readable by you alone), the one `pay -p sandbox` sends. The ' +
    'well-known sandbox key is served only when given by name (--key, --key-file or PAY_SANDBOX_KEYS). ' +
    'Its database is store.db in $PAY_SANDBOX_DIR (default ~/.local/share/pay/sandbox). Each request ' +
    'is logged on stderr (method, path, status, milliseconds), and each notification sent, unless --quiet. ' +
    "Every route is served under /api too (the base the service's shop plugins use). Its account (a shop " +
    'signs in with it: `pay login --email`) is --account, else PAY_SANDBOX_ACCOUNT, else one made for the ' +
    "directory; its businesses are the keys'. With --json, one line of JSON on stdout once listening: " +
    '{"base_url", "keys", "packages", "signature_keys", "webhooks", "account": {"email", "password"}}.'

  static examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --port 0 --json',
    '<%= config.bin %> sandbox start --port 4011 --quiet',
    '<%= config.bin %> sandbox start --key-file ~/.config/pay/sandbox-keys',
    'PAY_SANDBOX_KEYS=sk_test_shop_a,sk_test_shop_b <%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --seed fixtures.json --once',
  ]

  /** It is the service: a profile or base URL given must be the built-in sandbox (or your own at its address). */
  static baseFlags = localFlags

  /** Errors of a --seed file name its entries and fields (`links[2].amount`), not flags. */
  static fieldsAsSent = true
  /** --seed seeds a business and --webhook adds its endpoints, with no request of the client. */
  static changesState = true

  static flags = {
    port: Flags.integer({
      description: `Port to listen on (0 picks a free one). Default: $PAY_SANDBOX_PORT, else ${DEFAULT_SANDBOX_PORT}.`,
      min: 0,
      max: 65535,
    }),
    host: Flags.string({
      description: 'Address to bind; anything but loopback exposes it to the network.',
      default: '127.0.0.1',
    }),
    ...sandboxKeyFlags,
    ...sandboxAccountFlags,
    quiet: Flags.boolean({ char: 'q', description: 'Do not log requests on stderr.' }),
    seed: Flags.string({
      description:
        "Fixture file (JSON) to seed the first key's business with before any request is answered (see `pay sandbox seed`).",
    }),
    once: Flags.boolean({ description: 'With --seed: skip the names seeded before.', ...needs('seed') }),
    ...startDoubleFlags,
  }

  async run(): Promise<Result> {
    const { flags } = this
    const request = {
      key: flags.key,
      keyFile: flags['key-file'],
      host: flags.host,
      port: flags.port,
      quiet: flags.quiet,
      faults: { rules: flags.fault, seed: flags['fault-seed'] },
      webhooks: flags.webhook ?? [],
      seed: flags.seed === undefined ? undefined : { file: flags.seed, once: flags.once },
      account: flags.account,
    }
    return shown.log(stoppedText(await serveSandbox(request, this.context), this.context.io))
  }
}
