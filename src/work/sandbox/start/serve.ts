import { validationError } from '../../../errors.js'
import { formatAmount } from '../../../render/format.js'
import type { RunContext } from '../../../runtime/context.js'
import type { IO } from '../../../runtime/io.js'
import { madeKeyNotice, madeOverOldStore } from '../../../runtime/sandbox/profile.js'
import {
  DEFAULT_SANDBOX_PORT,
  loadLocalStore,
  type RequestLogEntry,
  type RunningSandbox,
  startSandbox,
} from '../../../sandbox/index.js'
import { NO_CREDENTIALS, webhookUrlProblem } from '../../../shared/webhook-url.js'
import { type Rec, sanitizeText } from '../../../values.js'
import { invalidFixtures, readFixtureFile, seededRows } from '../store/seed.js'
import { seededText } from '../store/view.js'
import { sandboxAccount } from './account.js'
import { sandboxKeys, servesWellKnown, WELL_KNOWN_NOTE } from './keys.js'
import { attemptLine, faultsText, listenError, logLine, portHint } from './view.js'

/** What `pay sandbox start` was asked. */
export interface ServeRequest {
  /** --key and --key-file; neither: PAY_SANDBOX_KEYS, else the sandbox directory's own key (keys.ts). */
  key?: string[]
  keyFile?: string
  host: string
  /** --port; not given: PAY_SANDBOX_PORT, else the default (and a hint to set it when that one is taken). */
  port?: number
  /** Do not log requests. */
  quiet: boolean
  faults: { rules?: string[]; seed?: number }
  /** --seed FILE (- for stdin), and --once. */
  seed?: { file: string; once: boolean }
  /** --webhook URL...: endpoints of the first key's business. */
  webhooks: string[]
  /** --account EMAIL:PASSWORD; not given: PAY_SANDBOX_ACCOUNT, else the fixtures', else the directory's (account.ts). */
  account?: string
}

/**
 * What serving takes of the run: the terminal, the output it writes to while it runs, the
 * environment (the keys, the port, how `pay -p sandbox` finds it) and the sandbox directory.
 */
export type ServeContext = Pick<RunContext, 'io' | 'out' | 'env' | 'sandboxDir'>

/**
 * `pay sandbox start`: serves the sandbox until Ctrl-C or SIGTERM. It goes on printing, through
 * the run's output as it comes: where it listens as soon as it does (one JSON line under
 * --json), then each request and notification sent on stderr (not with --quiet). What it comes
 * to: how many requests it answered.
 */
export async function serveSandbox(
  request: ServeRequest,
  context: ServeContext,
): Promise<{ requests: number }> {
  const { out, io, env } = context
  // The sandbox's rule for an endpoint, said as its 422 is: under the flag, exit 3.
  if (request.webhooks.some((url) => webhookUrlProblem(url) === 'credentials')) {
    throw validationError({ '--webhook': [`The URL ${NO_CREDENTIALS}.`] })
  }
  const {
    keys,
    note,
    own: ownKey,
  } = sandboxKeys({ key: request.key, 'key-file': request.keyFile }, env, context.sandboxDir)
  // A key made now over a store kept before: where that store's records are, said before it opens.
  const dir = context.sandboxDir
  const own = ownKey && {
    made: ownKey.made,
    said: (ownKey.overStore ? await madeOverOldStore(dir) : undefined) ?? madeKeyNotice(dir),
  }
  const { host } = request
  const port = request.port ?? Number(env.PAY_SANDBOX_PORT || DEFAULT_SANDBOX_PORT)
  let requests = 0
  const onRequest = (entry: RequestLogEntry) => {
    requests++
    // --quiet counts the requests and builds no line (its path redacted, its time formatted).
    if (!request.quiet) out.log(logLine(entry))
  }
  if (note) out.warn(note)
  if (servesWellKnown(keys)) out.warn(WELL_KNOWN_NOTE)
  const chosen = sandboxAccount(request.account, env)
  if (chosen.note) out.warn(chosen.note)
  const seed = request.seed && (await fixtures(request.seed, keys[0], io))
  let sandbox: RunningSandbox
  try {
    sandbox = await startSandbox({
      dir: context.sandboxDir,
      keys,
      host,
      port,
      onRequest,
      faults: request.faults,
      seed,
      account: chosen.account,
      webhooks: {
        endpoints: request.webhooks,
        onAttempt: request.quiet ? undefined : (attempt) => out.log(attemptLine(attempt)),
      },
    })
  } catch (error) {
    const where = { host, port, profilePort: request.port === undefined, dir: context.sandboxDir }
    throw (await listenError(error, where)) ?? error
  }
  // Ctrl-C or SIGTERM closes the server; a second Ctrl-C quits at once. Listened for before it
  // says where it listens: a script that reads that line and stops it at once gets a clean stop.
  const stopped = new Promise<void>((resolve) => io.onInterrupt(resolve, { terminate: true }))
  // What opening its store did (an old store imported): said in every mode, as it changed files.
  for (const { warning, message } of sandbox.notices) {
    if (warning) out.warn(message)
    else out.notice(message)
  }
  if (sandbox.seeded)
    out.notice(`${seededText(seededRows(sandbox.seeded.records))} from ${request.seed?.file}.`)
  sayListening(sandbox, request, context, own)
  await stopped
  await sandbox.close()
  return { requests }
}

/**
 * Where the sandbox listens, its keys (`own`: the directory's, and whether it was made now) and
 * packages; how to reach it; its fault rules; a warning if exposed.
 */
function sayListening(
  sandbox: RunningSandbox,
  request: ServeRequest,
  context: ServeContext,
  own: { made: boolean; said: string } | undefined,
): void {
  const { out } = context
  if (own?.made) out.notice(own.said)
  const packages = Object.values(sandbox.packages).flat()
  const hint = portHint(sandbox.baseUrl, request.host, context.env)
  const seeded = sandbox.seeded && { seeded: sandbox.seeded.ids }
  const { signatureKeys: signature_keys, endpoints: webhooks } = sandbox.webhooks
  const { email, password } = sandbox.account
  if (out.json) {
    out.jsonLine({
      base_url: sandbox.baseUrl,
      keys: sandbox.keys,
      packages,
      signature_keys,
      webhooks,
      account: { email, password },
      ...seeded,
    })
    out.notice(`Database: ${sandbox.database}`)
    if (hint) out.notice(hint)
  } else {
    const lines = [
      `Sandbox listening on ${sandbox.baseUrl}`,
      `Database: ${sandbox.database}`,
      own ? `Key: ${sandbox.keys[0]} (this directory's own)` : `Keys: ${sandbox.keys.join(', ')}`,
      'Packages (for `pay subs create --package-id`):',
      ...packages.map(
        (p) =>
          `  ${p._id}  ${p.name}  ${formatAmount(p.amount, p.currency)} ${p.frequency}  (business ${p.business_id})`,
      ),
      sandbox.keys.length === 1
        ? 'Signature key of its notifications (`pay sandbox webhooks list`):'
        : 'Signature keys of its notifications, one per key in that order:',
      ...signature_keys.map((key) => `  ${key}`),
      ...webhookLines(webhooks),
      "Account of the keys' businesses (`pay login --email`, the plugins' sign-in):",
      `  ${email}  ${password}`,
      `The service's base path works too: ${sandbox.baseUrl}/api`,
    ]
    out.text(sanitizeText(lines.join('\n')))
    // How to reach it goes with the messages, before the line the request log follows.
    if (hint) out.notice(hint)
    out.text(request.quiet ? 'Press Ctrl-C to stop.' : 'Requests are logged below. Press Ctrl-C to stop.')
  }
  if (request.faults.rules?.length)
    out.notice(faultsText(sandbox.faults.list(), request.faults.seed !== undefined))
  if (!['127.0.0.1', 'localhost', '::1'].includes(request.host))
    out.warn(`The sandbox is bound to ${request.host}: other machines can reach it.`)
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
