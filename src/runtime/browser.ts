import { spawn } from 'node:child_process'
import path from 'node:path'
import type { Output } from '../render/output.js'
import { isPlainWebUrl } from '../values.js'

/** How long a browser command may take to fail before pay leaves it running and goes on. */
const FAILURE_WINDOW_MS = 1500

/** The program that opens a URL, its arguments (the URL among them, as one argument), and its name for messages. */
export interface BrowserCommand {
  command: string
  args: string[]
  label: string
}

/**
 * How a URL is opened on `platform`; no shell ever parses the URL:
 * - BROWSER, when set: on Linux and macOS a shell command (it may carry arguments), run by
 *   `/bin/sh -c 'BROWSER "$1"'` with the URL as `$1`, data the shell does not read as code; on
 *   Windows the path of a program, run without a shell, the URL its one argument;
 * - macOS: `open URL`; Linux and the rest: `xdg-open URL`;
 * - Windows: `rundll32.exe url.dll,FileProtocolHandler URL` from the system directory (never
 *   found through PATH or the current directory), the shell's own URL handler. Not `cmd /c
 *   start`, whose parsing of `|`, `&`, `^` and `%` no escaping makes safe.
 */
export function browserCommand(
  url: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): BrowserCommand {
  const browser = env.BROWSER?.trim()
  if (browser && platform === 'win32') return { command: browser, args: [url], label: `BROWSER (${browser})` }
  if (browser)
    return { command: '/bin/sh', args: ['-c', `${browser} "$1"`, 'sh', url], label: `BROWSER (${browser})` }
  if (platform === 'darwin') return { command: 'open', args: [url], label: 'open' }
  if (platform === 'win32') {
    const system = path.win32.join(env.SystemRoot || env.windir || 'C:\\Windows', 'System32')
    return {
      command: path.win32.join(system, 'rundll32.exe'),
      args: ['url.dll,FileProtocolHandler', url],
      label: 'rundll32 url.dll',
    }
  }
  return { command: 'xdg-open', args: [url], label: 'xdg-open' }
}

/**
 * The environment a browser starts with: the user's, without pay's own variables (PAY_API_KEY,
 * PAY_BASE_URL, every PAY_*, in any case, as Windows names them): the browser, and whatever it
 * starts, has no use for them, and a key in a browser's environment is in every process it runs.
 */
export function browserEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(env)) if (!/^PAY_/i.test(name)) result[name] = value
  return result
}

/**
 * Opens `url` in the user's browser (see browserCommand), from the run's environment `env`. Resolves to undefined once the browser
 * is on its way, or to why it could not be started. A URL with characters no web address has
 * (isPlainWebUrl) is not handed to any program.
 */
export function openInBrowser(
  url: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  if (!isPlainWebUrl(url)) return Promise.resolve('the URL holds characters no web address has')
  const { command, args, label } = browserCommand(url, env, platform)
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env: browserEnv(env) })
    const timer = setTimeout(() => {
      child.unref()
      resolve(undefined)
    }, FAILURE_WINDOW_MS)
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      resolve(error.code === 'ENOENT' ? `${label} was not found` : `${label}: ${error.message}`)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(
        code === 0 ? undefined : `${label} exited with ${code === 127 ? '127 (command not found)' : code}`,
      )
    })
  })
}

/**
 * Opens a page for the person at the terminal, saying so on stderr; a browser that cannot be
 * started is a warning, not a failure: the URL has been printed for them to open.
 */
export async function showInBrowser(out: Output, url: string, env: NodeJS.ProcessEnv): Promise<void> {
  out.note(`Opening ${url} in your browser.`)
  const problem = await openInBrowser(url, env)
  if (problem) out.warn(`could not open a browser: ${problem}. Open the URL yourself, or set BROWSER.`)
}
