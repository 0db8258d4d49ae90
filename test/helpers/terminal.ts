import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { BIN, cleanEnv, tempDir } from './cli.js'

/**
 * A real terminal for interactive tests: each Terminal is its own tmux server (own socket, no
 * user config) with one pane running `node bin/run.js ...args` directly (no shell between).
 *
 *   afterEach(closeTerminals)
 *   const term = await startTerminal(['links', 'create'], { env: sandbox.env })
 *   // or, in concurrent tests: test.concurrent('…', async (context) => {
 *   //   const term = await startTestTerminal(context, ['links', 'create'], { env: sandbox.env })
 *
 *   await term.waitFor('Customer e-mail')
 *   await term.type('jane@example.com', 'Enter')
 *   expect(await term.exitCode()).toBe(0)
 *   expect(await term.screen()).toContain('payment_url')
 *
 * The pane stays after the program exits (remain-on-exit), so what it showed and its exit
 * status can still be read. Everything the program writes to the terminal is also recorded
 * raw (`rawOutput()`), for assertions about the exact bytes that reached the terminal.
 * tmux must be installed (CI: `apt-get install -y tmux`).
 */

const run = promisify(execFile)

export interface TerminalOptions {
  /** Merged over cleanEnv() (temp PAY_CONFIG_DIR/PAY_SANDBOX_DIR, no PAY_* from the shell). */
  env?: Record<string, string | undefined>
  /** Columns and rows of the terminal; 80x50 (a usual terminal) unless given. */
  width?: number
  height?: number
  /** Run this program instead of bin/run.js: [executable, ...args]. */
  command?: string[]
}

export interface WaitOptions {
  /** 10 s unless given. */
  timeoutMs?: number
}

export interface Terminal {
  /**
   * Everything the terminal showed: the lines scrolled off the top, then the screen; trailing
   * blank lines and tmux's "Pane is dead" line left out.
   */
  screen(): Promise<string>
  /**
   * The screen's rows as the terminal laid them out (the lines scrolled off the top too): a line
   * wider than the terminal is two rows here, where screen() shows it whole. Trailing blank rows
   * left out.
   */
  rows(): Promise<string[]>
  /** Polls screen() until it contains `text` (or matches the regex); returns that screen. */
  waitFor(pattern: string | RegExp, options?: WaitOptions): Promise<string>
  /** Types literal text, then optional tmux key names: `type('jane@example.com', 'Enter')`. */
  type(text: string, ...keys: string[]): Promise<void>
  /** Sends tmux key names: 'Enter', 'C-c', 'C-u', 'Down', 'BSpace', … */
  press(...keys: string[]): Promise<void>
  /** Waits for the program to end and returns its exit status. */
  exitCode(options?: WaitOptions): Promise<number>
  /**
   * Waits for the program to end, then returns every byte it wrote to the terminal (stdout and
   * stderr interleaved; the tty turned each \n into \r\n). Ends the tmux server: screen() then
   * returns the last screen.
   */
  rawOutput(options?: WaitOptions): Promise<Buffer>
  /** Kills the tmux server and removes its files; safe to call twice. */
  close(): Promise<void>
}

const DEFAULT_TIMEOUT_MS = 10_000
const POLL_MS = 50
const SESSION = 'pay'

const open = new Set<Terminal>()

/** Closes every terminal still open: `afterEach(closeTerminals)`. */
export async function closeTerminals(): Promise<void> {
  await Promise.all([...open].map((terminal) => terminal.close()))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const describePattern = (pattern: string | RegExp) =>
  typeof pattern === 'string' ? JSON.stringify(pattern) : String(pattern)

const matches = (text: string, pattern: string | RegExp) =>
  typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)

/** Polls `check` until it returns a value other than undefined, or fails after the timeout. */
async function poll<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  failure: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(await failure())
    await sleep(POLL_MS)
  }
}

/**
 * startTerminal() for concurrent tests: the terminal is closed when its own test ends (pass
 * the test context; an afterEach would close the terminals of the tests still running).
 */
export async function startTestTerminal(
  context: { onTestFinished(listener: () => unknown): void },
  args: string[],
  options: TerminalOptions = {},
): Promise<Terminal> {
  const terminal = await startTerminal(args, options)
  context.onTestFinished(() => terminal.close())
  return terminal
}

/** Starts `pay ...args` (or options.command) in a fresh terminal. */
export async function startTerminal(args: string[], options: TerminalOptions = {}): Promise<Terminal> {
  const dir = tempDir('pay-tmux-')
  const socket = path.join(dir, 'tmux.sock')
  const config = path.join(dir, 'tmux.conf')
  const output = path.join(dir, 'output.raw')
  const recorded = path.join(dir, 'output.done')
  fs.writeFileSync(config, 'set -g remain-on-exit on\nset -g history-limit 10000\nset -g status off\n')
  fs.writeFileSync(output, '')
  const env: Record<string, string> = { ...cleanEnv(options.env), TERM: 'xterm-256color' }
  delete env.TMUX
  const tmux = async (...tmuxArgs: string[]) => {
    const { stdout } = await run('tmux', ['-S', socket, '-f', config, ...tmuxArgs], { env })
    return stdout
  }

  let serverGone = false
  let lastScreen: string | undefined
  const screen = async () => {
    if (serverGone) return lastScreen ?? ''
    // -J: a line the terminal wrapped comes back whole, as a person copying it gets it.
    const text = await tmux('capture-pane', '-p', '-J', '-S', '-', '-t', SESSION)
    lastScreen = text
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line) => !/^Pane is dead \(/.test(line))
      .join('\n')
      .replace(/\s+$/, '\n')
    return lastScreen
  }
  const rows = async () => {
    const text = await tmux('capture-pane', '-p', '-S', '-', '-t', SESSION)
    const all = text
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line) => !/^Pane is dead \(/.test(line))
    while (all.length > 0 && all.at(-1) === '') all.pop()
    return all
  }
  const stopServer = async () => {
    if (serverGone) return
    serverGone = true
    await tmux('kill-server').catch(() => {})
  }

  const program = options.command ?? [process.execPath, BIN, ...args]
  // The program waits for a go signal, so that the recording (pipe-pane) misses none of its output.
  const gate = `tmux -S "$0" wait-for ${SESSION}-go && exec "$@"`
  await tmux(
    'new-session',
    '-d',
    '-s',
    SESSION,
    '-x',
    String(options.width ?? 80),
    '-y',
    String(options.height ?? 50),
    '/bin/sh',
    '-c',
    gate,
    socket,
    ...program,
  )

  const terminal: Terminal = {
    screen,
    rows,
    waitFor(pattern, waitOptions = {}) {
      return poll(
        async () => {
          const text = await screen()
          return matches(text, pattern) ? text : undefined
        },
        waitOptions.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        async () => `Timed out waiting for ${describePattern(pattern)} on the terminal:\n${await screen()}`,
      )
    },
    async type(text, ...keys) {
      // `--`: text starting with a dash ("-5") is typed, not read as an option of send-keys.
      if (text !== '') await tmux('send-keys', '-t', SESSION, '-l', '--', text)
      if (keys.length > 0) await tmux('send-keys', '-t', SESSION, ...keys)
    },
    async press(...keys) {
      await tmux('send-keys', '-t', SESSION, ...keys)
    },
    exitCode(waitOptions = {}) {
      return poll(
        async () => {
          const state = await tmux(
            'display-message',
            '-p',
            '-t',
            SESSION,
            '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}',
          )
          const [dead, status, signal] = state.trim().split(':')
          // The pane is dead once its tty closes; the status is known once the process is reaped.
          if (dead === '1' && status !== '') return Number(status)
          if (dead === '1' && signal !== '') throw new Error(`The program was killed by signal ${signal}.`)
          // tmux 3.3 sometimes misses the SIGCHLD of the pane's process and leaves it a zombie:
          // the exit of any other child (this run-shell) makes it reap every exited child.
          if (dead === '1') await tmux('run-shell', 'true')
          return undefined
        },
        waitOptions.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        async () => `Timed out waiting for the program to exit. The terminal:\n${await screen()}`,
      )
    },
    async rawOutput(waitOptions = {}) {
      if (!serverGone) {
        await terminal.exitCode(waitOptions)
        await screen()
        // With remain-on-exit the pipe stays open while the server lives: ending the server
        // closes it, `cat` reaches EOF and marks the recording complete.
        await stopServer()
        await poll(
          async () => (fs.existsSync(recorded) ? true : undefined),
          waitOptions.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          async () => 'Timed out waiting for the terminal recording to be complete.',
        )
      }
      return fs.readFileSync(output)
    },
    async close() {
      if (!open.delete(terminal)) return
      await stopServer()
      // The recording's `cat` ends with the server; let it finish writing before removing its dir.
      await poll(
        async () => (fs.existsSync(recorded) ? true : undefined),
        2000,
        async () => '',
      ).catch(() => {})
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
    },
  }
  open.add(terminal)
  try {
    await tmux('pipe-pane', '-O', '-t', SESSION, `cat >> '${output}'; touch '${recorded}'`)
    await tmux('wait-for', '-S', `${SESSION}-go`)
  } catch (error) {
    await terminal.close()
    throw error
  }
  return terminal
}
