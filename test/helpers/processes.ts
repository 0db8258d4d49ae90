import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { build } from 'esbuild'
import { ROOT, tempDir } from './cli.js'
import type { Json } from './links.js'

/**
 * Node processes for tests that need a part of pay in a process of its own (the sandbox's
 * main.ts, the file lock): bundled from source, so a test never runs a stale dist/, started,
 * and killed at the end of each test (`afterEach(killStarted)`).
 */

/**
 * Bundles a source file (`test/helpers/sandbox-main.ts`) into a runnable .mjs in a temp dir. The
 * native libsql stays outside, found through a node_modules link to pay's own, as the built pay
 * finds it.
 */
export async function bundleEntry(entry: string): Promise<{ file: string; inputs: string[] }> {
  const dir = tempDir('pay-bundle-')
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
  const file = path.join(dir, `${path.basename(entry, '.ts')}.mjs`)
  const result = await build({
    external: ['libsql'],
    entryPoints: [path.resolve(entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    metafile: true,
    logLevel: 'silent',
  })
  return { file, inputs: Object.keys(result.metafile.inputs).sort() }
}

const started: ChildProcess[] = []

/** SIGKILLs every process started here that is still running. */
export function killStarted(): void {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}

/** `node ...args`, stdout and stderr piped; killStarted() ends it if the test does not. */
export function startNode(args: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  started.push(child)
  return child
}

/** Runs `node ...args` to its end. */
export function runNode(
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = startNode(args, env)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

export interface SandboxProcess {
  child: ChildProcess
  baseUrl: string
  /** The JSON line printed once listening. */
  line: Json
  /** The first key it serves: its directory's own when it was given none. */
  key: string
  stderr(): string
}

/** Starts a sandbox (main.ts, or `pay sandbox start --json`) and resolves once it printed its JSON line. */
export function startSandboxProcess(args: string[], env?: NodeJS.ProcessEnv): Promise<SandboxProcess> {
  const child = startNode(args, env)
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (text) => {
      const line = JSON.parse(text)
      resolve({ child, baseUrl: line.base_url, line, key: line.keys[0], stderr: () => stderr })
    })
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)))
  })
}

export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })

/** The pid of a process that has ended: a lock owner known to be dead. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'])
  await exited(child)
  return child.pid!
}
