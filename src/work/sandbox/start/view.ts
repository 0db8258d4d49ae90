/** What `pay sandbox start` says: its request log's lines, why it cannot listen, how to reach it. */
import { type PayError, usageError } from '../../../errors.js'
import { displayWidth, wrapToWidth } from '../../../render/table/width.js'
import type { Env } from '../../../runtime/context.js'
import { portOf, probeSandbox } from '../../../runtime/sandbox/connection.js'
import {
  type Attempted,
  DEFAULT_SANDBOX_PORT,
  type FaultList,
  type RequestLogEntry,
} from '../../../sandbox/index.js'
import { sanitizeText } from '../../../values.js'

/**
 * `09:21:03 POST /payment-links 200 2.1 ms`: local time, method, path (secrets redacted), status,
 * time taken; a faulted request ends in `fault: 503 x2`.
 */
export function logLine({ method, path, status, ms, fault }: RequestLogEntry): string {
  const time = new Date().toTimeString().slice(0, 8)
  const marked = fault === undefined ? '' : ` fault: ${fault}`
  return sanitizeText(`${time} ${method} ${path} ${status ?? '-'} ${ms.toFixed(1)} ms${marked}`)
}

/**
 * A notification sent, in the request log: `09:21:04 WEBHOOK http://127.0.0.1:3000/hook 200 3.1 ms
 * delivered`: the URL, its answer or what went wrong, and the delivery's state after it.
 */
export function attemptLine({ url, status, error, ms, state }: Attempted): string {
  const time = new Date().toTimeString().slice(0, 8)
  const answer = status === null ? `- ${ms.toFixed(1)} ms (${error})` : `${status} ${ms.toFixed(1)} ms`
  return sanitizeText(`${time} WEBHOOK ${url} ${answer} ${state}`)
}

/** What `sandbox start` says of the fault rules it starts with, and the seed that repeats the run. */
export function faultsText(list: FaultList, seedGiven: boolean): string {
  const repeat = seedGiven ? '' : `; --fault-seed ${list.seed} repeats this run`
  const lines = list.rules.map((rule) => `  ${rule.rule}`)
  return [`Fault rules (seed ${list.seed}${repeat}):`, ...lines].join('\n')
}

/**
 * What `sandbox start` says once stopped, on stderr; on a terminal below the "^C" that Ctrl-C left
 * where the cursor was.
 */
export function stoppedText({ requests }: { requests: number }, io: { stderrIsTerminal: boolean }): string {
  const below = io.stderrIsTerminal ? '\n' : ''
  return `${below}Sandbox stopped after ${requests} ${requests === 1 ? 'request' : 'requests'}.`
}

const PICK_PORT = 'pick another port with --port PORT, or --port 0 for any free one.'

/**
 * A port or address the sandbox cannot listen on, said as a usage error with what to do instead;
 * `dir`: the user's sandbox directory, which a sandbox already there proves it keeps its store in.
 */
export async function listenError(
  error: unknown,
  where: { host: string; port: number; profilePort: boolean; dir: string },
): Promise<PayError | undefined> {
  const { host, port, profilePort, dir } = where
  const code = (error as { code?: unknown })?.code
  if (code === 'EADDRINUSE') {
    const running = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    const found = await probeSandbox(running, { dir })
    if (found === 'proven') {
      return usageError(
        `Port ${port} is taken: a pay sandbox already runs at ${running}.`,
        `Use it, or ${PICK_PORT}`,
      )
    }
    if (found === 'unproven') {
      return usageError(
        `Port ${port} on ${host} is taken by a pay sandbox that is not yours: it could not prove it keeps ` +
          `its store in ${dir} (another PAY_SANDBOX_DIR's, or another user's).`,
        capital(PICK_PORT),
      )
    }
    // The sandbox profile looks on this port: a sandbox elsewhere is found only through the variable.
    const profile = profilePort
      ? '\nFor `pay -p sandbox` to find it there, set PAY_SANDBOX_PORT to that port instead.'
      : ''
    return usageError(
      `Port ${port} on ${host} is taken by another program.`,
      `${capital(PICK_PORT)}${profile}`,
    )
  }
  if (code === 'EACCES') {
    return usageError(
      `Not allowed to listen on port ${port} on ${host}: ports below 1024 need privileges.`,
      capital(PICK_PORT),
    )
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return usageError(
      `Cannot listen on ${host}: it is not an address of this machine.`,
      'Give --host an address of this machine (127.0.0.1 unless others must reach it).',
    )
  }
  return undefined
}

const capital = (text: string) => text[0].toUpperCase() + text.slice(1)

/** The hosts at which the sandbox profile's address (127.0.0.1) reaches a sandbox. */
const PROFILE_REACHES = new Set(['127.0.0.1', '0.0.0.0', '::', 'localhost'])

/** A shell word: as it is when it needs no quotes, else in single quotes. */
const shellWord = (text: string) =>
  /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`

/**
 * How `pay -p sandbox` reaches a sandbox that does not listen where the profile looks: the
 * variable to export (with the same PAY_SANDBOX_DIR, which its proof needs), or --base-url.
 * Undefined when the profile finds it as it is.
 */
export function portHint(baseUrl: string, host: string, env: Env): string | undefined {
  const profilePort = env.PAY_SANDBOX_PORT || String(DEFAULT_SANDBOX_PORT)
  const port = portOf(baseUrl)
  const reached = PROFILE_REACHES.has(host)
  if (reached && port === profilePort) return undefined
  const dir = env.PAY_SANDBOX_DIR ? ` PAY_SANDBOX_DIR=${shellWord(env.PAY_SANDBOX_DIR)}` : ''
  const lines = reached
    ? [
        `pay -p sandbox looks for a sandbox on port ${profilePort}, not ${port}. To use this one:`,
        `  export PAY_SANDBOX_PORT=${port}${dir}`,
        `or: pay -p sandbox --base-url ${baseUrl} …`,
      ]
    : [
        `pay -p sandbox looks for a sandbox at 127.0.0.1:${profilePort}. To use this one:`,
        `  pay -p sandbox --base-url ${baseUrl} …`,
      ]
  return lines.join('\n')
}

/** Under a log line's time: where the rest of a long line goes on. */
const UNDER_TIME = ' '.repeat('09:21:03 '.length)

/**
 * A line of the request log as a terminal of `width` columns shows it: wrapped at spaces, the rest
 * under the text after the time (a terminal would fold it mid-word); a word too wide for that (a
 * URL) whole, on a line of its own from the first column. Off a terminal (a log file), one line.
 */
export function logShown(line: string, screen: { stderrIsTerminal: boolean; width: number }): string {
  if (!screen.stderrIsTerminal) return line
  return wrapToWidth(line, screen.width, { indent: UNDER_TIME, unbroken: true })
    .split('\n')
    .map((part) =>
      part.startsWith(UNDER_TIME) && displayWidth(part) > screen.width ? part.slice(UNDER_TIME.length) : part,
    )
    .join('\n')
}
