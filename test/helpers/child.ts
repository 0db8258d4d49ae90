import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { BIN, type CliOptions, type CliResult, cleanEnv, expectNoKeyInOutput } from './cli.js'

export interface RunningCli {
  child: ChildProcessWithoutNullStreams
  /** What the child has written so far. */
  readonly stdout: string
  readonly stderr: string
  /** Resolves once the child has exited and its pipes are closed. */
  done: Promise<CliResult>
}

/**
 * Like runCli, but returns at once with the child, so that a test can signal it mid-run
 * (SIGINT, SIGKILL). Pipes, not a terminal; a clean environment.
 */
export function startCli(args: string[], options: CliOptions = {}): RunningCli {
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
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      try {
        resolve(expectNoKeyInOutput(args, options, { code, signal, stdout, stderr }))
      } catch (error) {
        reject(error)
      }
    })
  })
  child.stdin.on('error', () => {})
  child.stdin.end(options.input ?? '')
  return {
    child,
    get stdout() {
      return stdout
    },
    get stderr() {
      return stderr
    },
    done,
  }
}
