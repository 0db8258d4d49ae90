import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { formatAmount } from '../../render/format.js'
import { DEFAULT_SANDBOX_PORT, SANDBOX_KEY, sandboxDir } from '../../sandbox/constants.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  static summary = 'Serve the local sandbox over HTTP'
  static description =
    'Runs the sandbox service until Ctrl-C, for pay and for any HTTP client (curl, your own app). ' +
    'Each --key is a business of its own; without --key the well-known sandbox key is used. ' +
    'Data lives in $PAY_SANDBOX_DIR (default ~/.local/share/pay/sandbox). With --json, one line ' +
    'of JSON on stdout once listening: {"base_url", "keys", "packages"}.'

  static examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --port 0 --json',
    '<%= config.bin %> sandbox start --key sk_test_shop_a --key sk_test_shop_b',
  ]

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
  }

  async run(): Promise<void> {
    const { startSandbox } = await import('../../sandbox/server.js')
    const dir = sandboxDir()
    const keys = this.flags.key ?? [SANDBOX_KEY]
    const port = this.flags.port ?? Number(process.env.PAY_SANDBOX_PORT || DEFAULT_SANDBOX_PORT)
    const sandbox = await startSandbox({ dir, keys, host: this.flags.host, port })
    const packages = Object.values(sandbox.packages).flat()
    if (this.flags.json) {
      this.out.stdout.write(
        `${JSON.stringify({ base_url: sandbox.baseUrl, keys: sandbox.keys, packages })}\n`,
      )
    } else {
      const lines = [
        `Sandbox listening on ${sandbox.baseUrl}`,
        `Store: ${dir}`,
        `Keys: ${sandbox.keys.join(', ')}`,
        'Packages (for `pay subs create --package-id`):',
        ...packages.map(
          (p) =>
            `  ${p._id}  ${p.name}  ${formatAmount(p.amount, p.currency)} ${p.frequency}  (business ${p.business_id})`,
        ),
        'Press Ctrl-C to stop.',
      ]
      this.out.stdout.write(`${lines.join('\n')}\n`)
    }
    if (!['127.0.0.1', 'localhost', '::1'].includes(this.flags.host)) {
      this.out.warn(`The sandbox is bound to ${this.flags.host}: other machines can reach it.`)
    }
    // Ctrl-C or SIGTERM closes the server; a second Ctrl-C quits at once.
    await new Promise<void>((resolve) => this.io.onInterrupt(resolve, { terminate: true }))
    await sandbox.close()
  }
}
