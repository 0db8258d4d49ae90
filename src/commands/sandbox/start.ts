import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { globalFlags } from '../../cli/flags.js'
import { faultFlag } from '../../cli/sandbox-double.js'
import { faultsText, listenError, logLine, portHint } from '../../cli/sandbox-start.js'
import { formatAmount } from '../../render/format.js'
import { invalidFixtures, readFixtureFile, seededRows, seededText } from '../../resources/fixtures.js'
import { DEFAULT_SANDBOX_PORT, SANDBOX_KEY, sandboxDir } from '../../sandbox/constants.js'
import { MAX_SEED } from '../../sandbox/faults.js'
import type { RequestLogEntry, RunningSandbox } from '../../sandbox/server.js'
import { sanitizeText } from '../../values.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
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

  /**
   * It is the service, not a client of one: no profile, base URL or timeout to take, so none is
   * shown or accepted. (Typed as the base's: BaseCommand reads only json and debug before run().)
   */
  static baseFlags = { json: globalFlags.json, debug: globalFlags.debug } as unknown as typeof globalFlags

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
    once: Flags.boolean({ description: 'With --seed: skip the names seeded before.', dependsOn: ['seed'] }),
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

  async run(): Promise<void> {
    const { startSandbox } = await import('../../sandbox/server.js')
    const dir = sandboxDir()
    const keys = this.flags.key ?? [SANDBOX_KEY]
    const { host } = this.flags
    const port = this.flags.port ?? Number(process.env.PAY_SANDBOX_PORT || DEFAULT_SANDBOX_PORT)
    let requests = 0
    const onRequest = (entry: RequestLogEntry) => {
      requests++
      if (!this.flags.quiet) this.out.stderr.write(`${logLine(entry)}\n`)
    }
    const seed = this.flags.seed === undefined ? undefined : await this.fixtures(this.flags.seed, keys[0])
    let sandbox: RunningSandbox
    try {
      const faults = { rules: this.flags.fault, seed: this.flags['fault-seed'] }
      sandbox = await startSandbox({ dir, keys, host, port, onRequest, faults, seed })
    } catch (error) {
      throw (await listenError(error, host, port, this.flags.port === undefined)) ?? error
    }
    this.tell(sandbox.notices)
    const packages = Object.values(sandbox.packages).flat()
    const hint = portHint(sandbox.baseUrl, host)
    const seeded = sandbox.seeded && { seeded: sandbox.seeded.ids }
    if (sandbox.seeded)
      this.out.notice(`${seededText(seededRows(sandbox.seeded.records))} from ${this.flags.seed}.`)
    if (this.flags.json) {
      this.out.stdout.write(
        `${JSON.stringify({ base_url: sandbox.baseUrl, keys: sandbox.keys, packages, ...seeded })}\n`,
      )
      this.out.stderr.write(`${sanitizeText(`Database: ${sandbox.database}`)}\n`)
      if (hint) this.out.stderr.write(`${sanitizeText(hint)}\n`)
    } else {
      const lines = [
        `Sandbox listening on ${sandbox.baseUrl}`,
        `Database: ${sandbox.database}`,
        `Keys: ${sandbox.keys.join(', ')}`,
        'Packages (for `pay subs create --package-id`):',
        ...packages.map(
          (p) =>
            `  ${p._id}  ${p.name}  ${formatAmount(p.amount, p.currency)} ${p.frequency}  (business ${p.business_id})`,
        ),
      ]
      this.out.stdout.write(`${sanitizeText(lines.join('\n'))}\n`)
      // How to reach it goes with the messages, before the line the request log follows.
      if (hint) this.out.stderr.write(`${sanitizeText(hint)}\n`)
      this.out.stdout.write(
        `${this.flags.quiet ? 'Press Ctrl-C to stop.' : 'Requests are logged below. Press Ctrl-C to stop.'}\n`,
      )
    }
    if (this.flags.fault?.length) {
      this.out.stderr.write(
        `${sanitizeText(faultsText(sandbox.faults.list(), this.flags['fault-seed'] !== undefined))}\n`,
      )
    }
    if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
      this.out.warn(`The sandbox is bound to ${host}: other machines can reach it.`)
    }
    // Ctrl-C or SIGTERM closes the server; a second Ctrl-C quits at once.
    await new Promise<void>((resolve) => this.io.onInterrupt(resolve, { terminate: true }))
    await sandbox.close()
    // On a terminal, Ctrl-C left "^C" where the cursor was: the line starts below it.
    const below = this.io.stderrIsTerminal ? '\n' : ''
    this.out.stderr.write(
      `${below}Sandbox stopped after ${requests} ${requests === 1 ? 'request' : 'requests'}.\n`,
    )
  }

  /** The fixture file of --seed, checked for the business of `key` before anything listens (exit 2 or 3). */
  private async fixtures(file: string, key: string): Promise<{ fixtures: unknown; once: boolean }> {
    const fixtures = await readFixtureFile(file, () => this.io.readStdin())
    const { checkFixtures, seedingBusiness } = await import('../../sandbox/fixtures.js')
    const checked = checkFixtures(fixtures, seedingBusiness(key).packages)
    if (!checked.ok) throw invalidFixtures(file, checked.errors)
    return { fixtures, once: this.flags.once }
  }
}
