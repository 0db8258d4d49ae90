import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { localFlags, needs } from '../../cli/flags.js'
import { faultFlag } from '../../cli/sandbox/double.js'
import { serveSandbox } from '../../cli/sandbox/serve.js'
import type { Result } from '../../render/result.js'
import { DEFAULT_SANDBOX_PORT, MAX_SEED, SANDBOX_KEY } from '../../sandbox/index.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart, typeof localFlags> {
  static summary = 'Serve the local sandbox over HTTP'
  static description =
    'Runs the sandbox service until Ctrl-C, for pay and for any HTTP client (curl, your own app). ' +
    'Each --key is a business of its own; without --key the well-known sandbox key is used. ' +
    'Its database is store.db in $PAY_SANDBOX_DIR (default ~/.local/share/pay/sandbox). Each request ' +
    'is logged on stderr (method, path, status, milliseconds) unless --quiet. With --json, one line ' +
    'of JSON on stdout once listening: {"base_url", "keys", "packages"}.'

  static examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --port 0 --json',
    '<%= config.bin %> sandbox start --port 4011 --quiet',
    '<%= config.bin %> sandbox start --key sk_test_shop_a --key sk_test_shop_b',
    '<%= config.bin %> sandbox start --seed fixtures.json --once',
  ]

  /** It is the service: a profile or base URL given must be the built-in sandbox (or your own at its address). */
  static baseFlags = localFlags

  /** Errors of a --seed file name its entries and fields (`links[2].amount`), not flags. */
  static fieldsAsSent = true

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
    key: Flags.string({ description: 'API key of a business (repeatable).', multiple: true }),
    quiet: Flags.boolean({ char: 'q', description: 'Do not log requests on stderr.' }),
    seed: Flags.string({
      description:
        "Fixture file (JSON) to seed the first key's business with before any request is answered (see `pay sandbox seed`).",
    }),
    once: Flags.boolean({ description: 'With --seed: skip the names seeded before.', ...needs('seed') }),
    fault: faultFlag({
      description:
        'A fault rule, METHOD PATH EFFECT [xN|P%] [after] (repeatable), e.g. "POST /payment-links 503 x2": ' +
        'see `pay sandbox faults set`.',
      multiple: true,
    }),
    'fault-seed': Flags.integer({
      description: 'Seed of the P% rules, to repeat a run (default: a random one, said on stderr).',
      min: 0,
      max: MAX_SEED,
    }),
  }

  async run(): Promise<Result> {
    const port = this.flags.port ?? Number(this.context.env.PAY_SANDBOX_PORT || DEFAULT_SANDBOX_PORT)
    const request = {
      keys: this.flags.key ?? [SANDBOX_KEY],
      host: this.flags.host,
      port,
      portFromProfile: this.flags.port === undefined,
      quiet: this.flags.quiet,
      faults: { rules: this.flags.fault, seed: this.flags['fault-seed'] },
      seed: this.flags.seed === undefined ? undefined : { file: this.flags.seed, once: this.flags.once },
    }
    return serveSandbox(request, this.context)
  }
}
