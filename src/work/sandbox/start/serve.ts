import { formatAmount } from '../../../render/format.js'
import { type Result, shown } from '../../../render/result.js'
import type { RunContext } from '../../../runtime/context.js'
import type { IO } from '../../../runtime/io.js'
import { noticesShown } from '../../../runtime/sandbox/connection.js'
import {
  loadLocalStore,
  type RequestLogEntry,
  type RunningSandbox,
  startSandbox,
} from '../../../sandbox/index.js'
import { type Rec, sanitizeText } from '../../../values.js'
import { invalidFixtures, readFixtureFile, seededRows } from '../store/seed.js'
import { seededText } from '../store/view.js'
import { attemptLine, faultsText, listenError, logLine, portHint } from './view.js'

/** What `pay sandbox start` was asked. */
export interface ServeRequest {
  keys: string[]
  /** What to say of where the keys came from (--key: the process list shows them). */
  keyNote?: string
  host: string
  port: number
  /** No --port was given (the port is PAY_SANDBOX_PORT's or the default), for the hint when it is taken. */
  portFromProfile: boolean
  /** Do not log requests. */
  quiet: boolean
  faults: { rules?: string[]; seed?: number }
  /** --seed FILE (- for stdin), and --once. */
  seed?: { file: string; once: boolean }
  /** --webhook URL...: endpoints of the first key's business. */
  webhooks: string[]
}

/**
 * What serving takes of the run: the terminal, the printing of what it says while it runs, the
 * environment (how `pay -p sandbox` finds it) and the sandbox directory.
 */
export type ServeContext = Pick<RunContext, 'io' | 'show' | 'env' | 'sandboxDir'>

/**
 * `pay sandbox start`: serves the sandbox until Ctrl-C or SIGTERM, logging each request on
 * stderr; says where it listens (one JSON line under --json) as soon as it does; the result is
 * what it says once stopped.
 */
export async function serveSandbox(request: ServeRequest, context: ServeContext): Promise<Result> {
  const { host, port } = request
  let requests = 0
  const log = (line: string) => {
    if (!request.quiet) void context.show(shown.log(line))
  }
  const onRequest = (entry: RequestLogEntry) => {
    requests++
    // --quiet counts the requests and builds no line (its path redacted, its time formatted).
    if (!request.quiet) log(logLine(entry))
  }
  if (request.keyNote) await context.show(shown.warn(request.keyNote))
  const seed = request.seed && (await fixtures(request.seed, request.keys[0], context.io))
  let sandbox: RunningSandbox
  try {
    sandbox = await startSandbox({
      dir: context.sandboxDir,
      keys: request.keys,
      host,
      port,
      onRequest,
      faults: request.faults,
      seed,
      webhooks: {
        endpoints: request.webhooks,
        onAttempt: request.quiet ? undefined : (attempt) => log(attemptLine(attempt)),
      },
    })
  } catch (error) {
    throw (
      (await listenError(error, {
        host,
        port,
        profilePort: request.portFromProfile,
        dir: context.sandboxDir,
      })) ?? error
    )
  }
  const seeded =
    sandbox.seeded &&
    shown.notice(`${seededText(seededRows(sandbox.seeded.records))} from ${request.seed?.file}.`)
  // Ctrl-C or SIGTERM closes the server; a second Ctrl-C quits at once. Listened for before it
  // says where it listens: a script that reads that line and stops it at once gets a clean stop.
  const stopped = new Promise<void>((resolve) => context.io.onInterrupt(resolve, { terminate: true }))
  await context.show([noticesShown(sandbox.notices), seeded, listening(sandbox, request, context)])
  await stopped
  await sandbox.close()
  // On a terminal, Ctrl-C left "^C" where the cursor was: the line starts below it.
  const below = context.io.stderrIsTerminal ? '\n' : ''
  return shown.log(`${below}Sandbox stopped after ${requests} ${requests === 1 ? 'request' : 'requests'}.`)
}

/** Where the sandbox listens, its keys and packages; how to reach it; its fault rules; a warning if exposed. */
function listening(sandbox: RunningSandbox, request: ServeRequest, context: ServeContext): Result {
  const packages = Object.values(sandbox.packages).flat()
  const hint = portHint(sandbox.baseUrl, request.host, context.env)
  const hintShown = hint ? shown.notice(hint) : undefined
  const lines = [
    `Sandbox listening on ${sandbox.baseUrl}`,
    `Database: ${sandbox.database}`,
    `Keys: ${sandbox.keys.join(', ')}`,
    'Packages (for `pay subs create --package-id`):',
    ...packages.map(
      (p) =>
        `  ${p._id}  ${p.name}  ${formatAmount(p.amount, p.currency)} ${p.frequency}  (business ${p.business_id})`,
    ),
    sandbox.keys.length === 1
      ? 'Signature key of its notifications (`pay sandbox webhooks list`):'
      : 'Signature keys of its notifications, one per key in that order:',
    ...sandbox.webhooks.signatureKeys.map((key) => `  ${key}`),
    ...webhookLines(sandbox.webhooks.endpoints),
  ]
  const seeded = sandbox.seeded && { seeded: sandbox.seeded.ids }
  const { signatureKeys: signature_keys, endpoints: webhooks } = sandbox.webhooks
  const json = {
    base_url: sandbox.baseUrl,
    keys: sandbox.keys,
    packages,
    signature_keys,
    webhooks,
    ...seeded,
  }
  return [
    {
      kind: 'either',
      json: [{ kind: 'jsonLine', json }, shown.notice(`Database: ${sandbox.database}`), hintShown],
      text: [
        { kind: 'text', text: sanitizeText(lines.join('\n')), json },
        // How to reach it goes with the messages, before the line the request log follows.
        hintShown,
        {
          kind: 'text',
          text: request.quiet ? 'Press Ctrl-C to stop.' : 'Requests are logged below. Press Ctrl-C to stop.',
          json,
        },
      ],
    },
    request.faults.rules?.length
      ? shown.notice(faultsText(sandbox.faults.list(), request.faults.seed !== undefined))
      : undefined,
    ['127.0.0.1', 'localhost', '::1'].includes(request.host)
      ? undefined
      : shown.warn(`The sandbox is bound to ${request.host}: other machines can reach it.`),
  ]
}

/** Where the first key's business's notifications go, if anywhere. */
const webhookLines = (endpoints: Rec[]) =>
  endpoints.length === 0
    ? []
    : [
        'Webhook endpoints (payment attempts are POSTed there):',
        ...endpoints.map((e) => `  ${e._id}  ${e.url}`),
      ]

/** The fixture file of --seed, checked for the business of `key` before anything listens (exit 2 or 3). */
async function fixtures(
  seed: { file: string; once: boolean },
  key: string,
  io: IO,
): Promise<{ fixtures: unknown; once: boolean }> {
  const fixtures = await readFixtureFile(seed.file, () => io.readStdin())
  const { checkFixtures, businessOf } = await loadLocalStore()
  const checked = checkFixtures(fixtures, businessOf(key).packages)
  if (!checked.ok) throw invalidFixtures(seed.file, checked.errors)
  return { fixtures, once: seed.once }
}
