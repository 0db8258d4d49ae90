import fs from 'node:fs'
import path from 'node:path'
import { tempDir } from './cli.js'
import { envelope, type FakeServer, sendJson, startFakeServer } from './fake-server.js'

/**
 * For `links open`, `links create --open` and `links qr`: a BROWSER command that records what it
 * was given, and a service whose links have payment_urls no browser should get.
 */

/**
 * Shell syntax a careless `sh -c "$BROWSER $URL"` would run, made of characters a URL may hold
 * (RFC 3986): `$(touch$IFS./pwned)` makes a file, `;id` and `&id` run id.
 */
export const SHELL_LOOKING_URL = 'https://pay.example/p?a=$(touch$IFS./pwned)&b=;id&c=1'
/** What cmd.exe would run as a second command: no real payment URL holds a `|`, so pay opens none. */
const PIPE_URL = 'https://pay.example/x|calc.exe'

/**
 * A service that answers odd payment_urls: link `shell` has SHELL_LOOKING_URL, link `pipe`
 * PIPE_URL, any other `javascript:alert(1)`.
 */
export function startOddUrlService(): Promise<FakeServer> {
  return startFakeServer((request, response) => {
    const id = request.path.split('/').pop()
    const url = id === 'shell' ? SHELL_LOOKING_URL : id === 'pipe' ? PIPE_URL : 'javascript:alert(1)'
    sendJson(response, 200, envelope({ _id: id, payment_url: url }))
  })
}

/** A BROWSER command that writes the arguments it was given to a file, one per line. */
export function fakeBrowser(): { command: string; opened: () => string | undefined; dir: string } {
  const dir = tempDir('pay-browser-')
  const command = path.join(dir, 'browser')
  fs.writeFileSync(command, `#!/bin/sh\nprintf '%s\\n' "$@" > "${dir}/opened"\n`, { mode: 0o755 })
  const file = path.join(dir, 'opened')
  return { command, dir, opened: () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined) }
}
