import { Flags } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { globalFlags } from '../../cli/flags.js'
import { type PayError, usageError } from '../../errors.js'
import { formatAmount } from '../../render/format.js'
import { probeSandbox } from '../../sandbox/connection.js'
import { DEFAULT_SANDBOX_PORT, SANDBOX_KEY, sandboxDir } from '../../sandbox/constants.js'
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
  ]

  /**
   * It is the service, not a client of one: no profile, base URL or timeout to take, so none is
   * shown or accepted. (Typed as the base's: BaseCommand reads only json and debug before run().)
   */
  static baseFlags = { json: globalFlags.json, debug: globalFlags.debug } as unknown as typeof globalFlags

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
    let sandbox: RunningSandbox
    try {
      sandbox = await startSandbox({ dir, keys, host, port, onRequest })
    } catch (error) {
      throw (await listenError(error, host, port, this.flags.port === undefined)) ?? error
    }
    this.tell(sandbox.notices)
    const packages = Object.values(sandbox.packages).flat()
    if (this.flags.json) {
      this.out.stdout.write(
        `${JSON.stringify({ base_url: sandbox.baseUrl, keys: sandbox.keys, packages })}\n`,
      )
      this.out.stderr.write(`${sanitizeText(`Database: ${sandbox.database}`)}\n`)
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
        this.flags.quiet ? 'Press Ctrl-C to stop.' : 'Requests are logged below. Press Ctrl-C to stop.',
      ]
      this.out.stdout.write(`${sanitizeText(lines.join('\n'))}\n`)
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
}

/** `09:21:03 POST /payment-links 200 2.1 ms`: local time, method, path (secrets redacted), status, time taken. */
function logLine({ method, path, status, ms }: RequestLogEntry): string {
  const time = new Date().toTimeString().slice(0, 8)
  return sanitizeText(`${time} ${method} ${path} ${status ?? '-'} ${ms.toFixed(1)} ms`)
}

const PICK_PORT = 'pick another port with --port PORT, or --port 0 for any free one.'

/** A port or address the sandbox cannot listen on, said as a usage error with what to do instead. */
async function listenError(
  error: unknown,
  host: string,
  port: number,
  profilePort: boolean,
): Promise<PayError | undefined> {
  const code = (error as { code?: unknown })?.code
  if (code === 'EADDRINUSE') {
    const running = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    if ((await probeSandbox(running)) === 'sandbox') {
      return usageError(
        `Port ${port} is taken: a pay sandbox already runs at ${running}.`,
        `Use it, or ${PICK_PORT}`,
      )
    }
    // The sandbox profile looks on this port: a sandbox elsewhere is found only through the variable.
    const profile = profilePort
      ? '\nFor `pay -p sandbox` to find it there, set PAY_SANDBOX_PORT to that port instead.'
      : ''
    return usageError(
      `Port ${port} on ${host} is taken by another program.`,
      `${capital(PICK_PORT)}${profile}`,
    )
  }
  if (code === 'EACCES') {
    return usageError(
      `Not allowed to listen on port ${port} on ${host}: ports below 1024 need privileges.`,
      capital(PICK_PORT),
    )
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return usageError(
      `Cannot listen on ${host}: it is not an address of this machine.`,
      'Give --host an address of this machine (127.0.0.1 unless others must reach it).',
    )
  }
  return undefined
}

const capital = (text: string) => text[0].toUpperCase() + text.slice(1)
