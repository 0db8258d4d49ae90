import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { HelperAnswer, HelperRequest } from './keychain-helper.js'

/**
 * Keys in the system keychain (macOS Keychain, Windows Credential Manager, the Secret Service on
 * Linux), through @napi-rs/keyring, which only the helper program loads (keychain-helper.ts).
 * Each operation runs that helper as a child process and, once it has started, waits for it at
 * most 3 seconds: its calls are synchronous native calls that can block for ever, and a child
 * process, unlike a worker thread or a libuv thread stuck in one, can be killed without holding up
 * pay's exit. A keychain that does not answer in time counts as none.
 */
export const KEYCHAIN_SERVICE = 'pay'
export const KEYCHAIN_TIMEOUT_MS = 3000
/**
 * The helper's own start (node and the native module, about 60 ms, seconds on a machine busy with
 * other work) has a limit of its own: the keychain's 3 s count from the newline the helper writes
 * once it has started.
 */
export const HELPER_START_TIMEOUT_MS = 10_000

export interface KeychainOptions {
  /** The helper program to run (tests give their own); default: the one beside the bundle. */
  helper?: string
  timeoutMs?: number
  startTimeoutMs?: number
  /** A line for --debug: what was asked, how it went, how long it took. */
  debug?: (line: string) => void
  /** The environment of the run: the helper's is made from it, and PAY_KEYCHAIN=0 turns the keychain off. */
  env: NodeJS.ProcessEnv
}

/** No keychain, or one that failed: `reason` finishes the sentence "the system keychain …". */
export interface KeychainFailure {
  ok: false
  reason: string
  /** PAY_KEYCHAIN=0: pay was told not to use one. */
  turnedOff?: true
}

export { keychainAccount } from './file.js'

/** In the bundle, import.meta.url is dist/pay.cjs's, and the helper is dist/keychain-helper.cjs. */
const bundledHelper = () => fileURLToPath(new URL('./keychain-helper.cjs', import.meta.url))

/**
 * The helper's environment: the caller's (D-Bus address, HOME, XDG dirs), without what would
 * slow its start (NODE_EXTRA_CA_CERTS costs every node 40-60 ms, and it makes no TLS
 * connection) or change its node (NODE_OPTIONS), without pay's own settings (PAY_API_KEY
 * among them: a key the helper has no use for, in an environment `ps e` shows), and without
 * Rust backtraces.
 */
function helperEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(env)) if (!name.startsWith('PAY_')) result[name] = value
  delete result.NODE_OPTIONS
  delete result.NODE_EXTRA_CA_CERTS
  return { ...result, RUST_BACKTRACE: '0', RUST_LIB_BACKTRACE: '0' }
}

/** `PAY_KEYCHAIN=0`: pay uses no system keychain, as on a machine without one. */
export const keychainTurnedOff = (env: NodeJS.ProcessEnv) => env.PAY_KEYCHAIN === '0'

function parseAnswer(text: string): HelperAnswer | undefined {
  try {
    const answer = JSON.parse(text) as HelperAnswer
    return typeof answer === 'object' && answer !== null && typeof answer.ok === 'boolean'
      ? answer
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Runs the helper on one request: its answer, or a failure when it cannot start, dies, answers
 * nonsense, does not start in time or, once started, takes longer than the time allowed. Then, or
 * once it has answered, it is killed if still running, and nothing of it is waited for: not its
 * exit, not its pipes.
 */
function askHelper(request: HelperRequest, options: KeychainOptions): Promise<HelperAnswer> {
  const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS
  const startTimeoutMs = options.startTimeoutMs ?? HELPER_START_TIMEOUT_MS
  return new Promise((resolve) => {
    let child: ChildProcess
    try {
      child = spawn(process.execPath, [options.helper ?? bundledHelper()], {
        env: helperEnv(options.env),
        stdio: ['pipe', 'pipe', 'ignore'],
        windowsHide: true,
      })
    } catch (error) {
      resolve({ ok: false, reason: `failed (its helper did not start: ${(error as Error).message})` })
      return
    }
    let output = ''
    let settled = false
    const finish = (answer: HelperAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      child.stdout?.destroy()
      child.stdin?.destroy()
      child.unref()
      resolve(answer)
    }
    let timer = setTimeout(
      () =>
        finish({ ok: false, reason: `failed (its helper did not start within ${startTimeoutMs / 1000} s)` }),
      startTimeoutMs,
    )
    let started = false
    // Done as soon as the answer is whole: a process the helper started may hold its stdout open.
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const answer = parseAnswer(output)
      if (answer) finish(answer)
      else if (!started) {
        started = true
        clearTimeout(timer)
        timer = setTimeout(
          () => finish({ ok: false, reason: `did not answer within ${timeoutMs / 1000} s` }),
          timeoutMs,
        )
      }
    })
    child.on('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, reason: `failed (its helper did not start: ${error.code ?? error.message})` }),
    )
    child.on('close', (code, signal) =>
      finish(
        parseAnswer(output) ?? {
          ok: false,
          reason: `failed (its helper ended with ${signal ?? `exit code ${code}`} and no answer)`,
        },
      ),
    )
    child.stdin?.on('error', () => {})
    child.stdin?.end(JSON.stringify(request))
  })
}

/** Runs one request, with a --debug line saying what happened (never a key). */
async function run(
  request: HelperRequest,
  what: string,
  options: KeychainOptions,
): Promise<HelperAnswer | KeychainFailure> {
  const started = performance.now()
  const answer: HelperAnswer | KeychainFailure = keychainTurnedOff(options.env)
    ? { ok: false, reason: 'is turned off (PAY_KEYCHAIN=0)', turnedOff: true }
    : await askHelper(request, options)
  if (options.debug) {
    const took = `${Math.round(performance.now() - started)} ms`
    let outcome: string
    if (!answer.ok) outcome = `the system keychain ${answer.reason}`
    else if (answer.op === 'read') outcome = `${Object.keys(answer.keys).length} found`
    else if (answer.op === 'delete') outcome = answer.deleted ? 'deleted' : 'there was none'
    else outcome = 'stored'
    options.debug(`keychain: ${what}: ${outcome} (${took}, service "${request.service}")`)
  }
  return answer
}

/** Stores a key under `account`, replacing any key there. */
export async function storeKey(
  account: string,
  key: string,
  options: KeychainOptions,
): Promise<{ ok: true } | KeychainFailure> {
  const answer = await run(
    { op: 'store', service: KEYCHAIN_SERVICE, account, key },
    `store "${account}"`,
    options,
  )
  if (!answer.ok) return answer
  return answer.op === 'store'
    ? { ok: true }
    : { ok: false, reason: 'failed (an answer to another question)' }
}

/** The keys of these accounts that the keychain holds. */
export async function readKeys(
  accounts: string[],
  options: KeychainOptions,
): Promise<{ ok: true; keys: Map<string, string> } | KeychainFailure> {
  const answer = await run(
    { op: 'read', service: KEYCHAIN_SERVICE, accounts },
    `read ${accounts.map((account) => `"${account}"`).join(', ')}`,
    options,
  )
  if (!answer.ok) return answer
  if (answer.op !== 'read' || typeof answer.keys !== 'object' || answer.keys === null)
    return { ok: false, reason: 'failed (an answer to another question)' }
  const keys = new Map<string, string>()
  for (const account of accounts) {
    const key = Object.hasOwn(answer.keys, account) ? answer.keys[account] : undefined
    if (typeof key === 'string' && key !== '') keys.set(account, key)
  }
  return { ok: true, keys }
}

/** Deletes the key of `account`; `deleted` is false when there was none. */
export async function deleteKey(
  account: string,
  options: KeychainOptions,
): Promise<{ ok: true; deleted: boolean } | KeychainFailure> {
  const answer = await run(
    { op: 'delete', service: KEYCHAIN_SERVICE, account },
    `delete "${account}"`,
    options,
  )
  if (!answer.ok) return answer
  return answer.op === 'delete'
    ? { ok: true, deleted: answer.deleted }
    : { ok: false, reason: 'failed (an answer to another question)' }
}
