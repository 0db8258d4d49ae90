import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { SANDBOX_KEY } from '../../src/sandbox/constants.js'
import { NO_KEYCHAIN_ENV } from './no-keychain.js'

export const ROOT = path.resolve(import.meta.dirname, '../..')
export const BIN = path.join(ROOT, 'bin/run.js')

export { NO_KEYCHAIN_ENV, NO_SESSION_BUS } from './no-keychain.js'

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** How a test runs pay: runCli (a process of bin/run.js) or runInProcess (test/helpers/in-process.ts). */
export type Runner = (args: string[], options?: CliOptions) => Promise<CliResult>

export interface CliOptions {
  /** Merged over a clean environment (no PAY_* from the developer's shell). */
  env?: Record<string, string | undefined>
  /** Written to stdin, then stdin is closed. */
  input?: string
  timeoutMs?: number
}

/** A temp dir removed by the caller (or left for the OS). */
export function tempDir(prefix = 'pay-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix))
}

let workerCache: string | undefined

/** A cache dir for the runs of this test worker: made once, so runs share pay's code cache. */
function workerCacheDir(): string {
  workerCache ??= tempDir('pay-worker-cache-')
  return workerCache
}

/** The environment a test runs pay in: own config and sandbox dirs, nothing inherited from PAY_*. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (
      !key.startsWith('PAY_') &&
      value !== undefined &&
      key !== 'NO_COLOR' &&
      key !== 'FORCE_COLOR' &&
      key !== 'BROWSER'
    )
      env[key] = value
  }
  env.PAY_CONFIG_DIR ??= tempDir('pay-config-')
  env.PAY_SANDBOX_DIR ??= tempDir('pay-sandbox-')
  // The journal of changes goes to a file of the test's own, never the developer's.
  env.PAY_JOURNAL_FILE ??= path.join(tempDir('pay-journal-'), 'journal.jsonl')
  // Nothing listens on port 1: the sandbox profile runs its sandbox in-process.
  env.PAY_SANDBOX_PORT ??= '1'
  // pay's cache (its code cache, completion scripts, the ids it completes) is this worker's own,
  // never the developer's: the ids of test sandboxes must not reach their completion.
  env.XDG_CACHE_HOME = workerCacheDir()
  if (process.platform === 'darwin') env.PAY_CACHE_DIR = path.join(workerCacheDir(), 'pay')
  // No system keychain (no-keychain.ts), then the test's own variables: undefined leaves one out.
  for (const [key, value] of Object.entries({ ...NO_KEYCHAIN_ENV, ...extra })) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

/**
 * The API keys a run was given (PAY_API_KEY, or the stdin of `login --with-key`), which must
 * appear in nothing it writes. The sandbox's key is public: `sandbox start` prints it.
 */
function keysGiven(args: string[], options: CliOptions): string[] {
  const keys = [options.env?.PAY_API_KEY]
  if (args.includes('--with-key')) keys.push(options.input?.trim())
  return keys.filter((key): key is string => key !== undefined && key.length >= 8 && key !== SANDBOX_KEY)
}

/**
 * Every end-to-end run is also a leak check: a key found in stdout or stderr fails the test
 * that ran it (test/e2e/reliability/leak*.test.ts scan traces, files and pieces of keys too).
 */
export function expectNoKeyInOutput(args: string[], options: CliOptions, result: CliResult): CliResult {
  for (const key of keysGiven(args, options)) {
    for (const [stream, text] of [
      ['stdout', result.stdout],
      ['stderr', result.stderr],
    ]) {
      if (text.includes(key)) throw new Error(`the API key appeared on ${stream} of: pay ${args.join(' ')}`)
    }
  }
  return result
}

/** Runs the real bin/run.js as a child process, stdin/stdout/stderr as pipes (not a terminal). */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk
    })
    // A hang detector, not a time goal: on a busy two-core machine a run has taken over 20 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      try {
        resolve(expectNoKeyInOutput(args, options, { code, signal, stdout, stderr }))
      } catch (error) {
        reject(error)
      }
    })
    child.stdin.on('error', () => {})
    child.stdin.end(options.input ?? '')
  })
}
