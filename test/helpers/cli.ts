import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const ROOT = path.resolve(import.meta.dirname, '../..')
export const BIN = path.join(ROOT, 'bin/run.js')

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

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

/** The environment a test runs pay in: own config and sandbox dirs, nothing inherited from PAY_*. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('PAY_') && value !== undefined && key !== 'NO_COLOR' && key !== 'FORCE_COLOR')
      env[key] = value
  }
  env.PAY_CONFIG_DIR ??= tempDir('pay-config-')
  env.PAY_SANDBOX_DIR ??= tempDir('pay-sandbox-')
  // Nothing listens on port 1: the sandbox profile runs its sandbox in-process.
  env.PAY_SANDBOX_PORT ??= '1'
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
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
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
    child.stdin.on('error', () => {})
    child.stdin.end(options.input ?? '')
  })
}
