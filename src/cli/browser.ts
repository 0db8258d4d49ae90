import { spawn } from 'node:child_process'
import type { Output } from '../render/output.js'

/** How long a browser command may take to fail before pay leaves it running and goes on. */
const FAILURE_WINDOW_MS = 1500

/**
 * Opens `url` in the user's browser: the BROWSER command when set (a shell command; the URL is
 * its last argument, passed as data, never as shell text), else the system's opener. Resolves
 * to undefined once the browser is on its way, or to why it could not be started.
 */
export function openInBrowser(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const browser = env.BROWSER?.trim()
  const [command, args, label] = browser
    ? ['/bin/sh', ['-c', `${browser} "$1"`, 'sh', url], `BROWSER (${browser})`]
    : systemOpener(url)
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env })
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

function systemOpener(url: string): [string, string[], string] {
  if (process.platform === 'darwin') return ['open', [url], 'open']
  // `start` takes its first quoted argument as a window title, hence the empty one.
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')], 'start']
  return ['xdg-open', [url], 'xdg-open']
}

/**
 * Opens a page for the person at the terminal, saying so on stderr; a browser that cannot be
 * started is a warning, not a failure: the URL has been printed for them to open.
 */
export async function showInBrowser(
  out: Output,
  url: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  out.note(`Opening ${url} in your browser.`)
  const problem = await openInBrowser(url, env)
  if (problem) out.warn(`could not open a browser: ${problem}. Open the URL yourself, or set BROWSER.`)
}
