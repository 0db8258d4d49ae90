import { Entry, findCredentials } from '@napi-rs/keyring'

/**
 * The keychain helper: a small program of its own (dist/keychain-helper.cjs), which pay runs as a
 * child process for each keychain operation (keychain.ts). It alone loads @napi-rs/keyring. Its
 * calls are synchronous native calls that can block forever (a D-Bus peer that accepts and never
 * answers, an unlock prompt nobody sees); a child process can be killed, where a blocked worker
 * thread or libuv thread would hold up pay's own exit.
 *
 * The request comes as JSON on stdin (a key to store never goes in argv, which `ps` shows), the
 * answer goes as JSON on stdout, after a newline that says the helper has started. Nothing else is
 * written anywhere.
 */
export type HelperRequest =
  | { op: 'store'; service: string; account: string; key: string }
  | { op: 'read'; service: string; accounts: string[] }
  | { op: 'delete'; service: string; account: string }

export type HelperAnswer =
  | { ok: true; op: 'store' }
  | { ok: true; op: 'read'; keys: Record<string, string> }
  | { ok: true; op: 'delete'; deleted: boolean }
  | { ok: false; reason: string }

/**
 * An item that went between the search and the reading of it: another program (another pay)
 * deleted an entry of the service meanwhile. The search is then simply made again.
 */
const VANISHED = /Object does not exist|No such interface|UnknownObject/i
const VANISHED_ATTEMPTS = 10

/**
 * The keys of `service` by account, from the platform's store itself. On Linux this talks to the
 * Secret Service directly, so it fails when there is none, where @napi-rs/keyring's Entry would
 * quietly use the kernel's keyutils instead (a keyring that forgets everything at logout, which is
 * no place for a key pay said was in the keychain).
 */
function keysOf(service: string): Map<string, string> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return new Map(findCredentials(service).map((credential) => [credential.account, credential.password]))
    } catch (error) {
      if (attempt === VANISHED_ATTEMPTS || !VANISHED.test(String((error as Error)?.message))) throw error
    }
  }
}

function answer(request: HelperRequest): HelperAnswer {
  const { service } = request
  if (request.op === 'read') {
    const found = keysOf(service)
    const keys: Record<string, string> = {}
    for (const account of request.accounts) {
      const key = found.get(account)
      if (key !== undefined) keys[account] = key
    }
    return { ok: true, op: 'read', keys }
  }
  if (request.op === 'store') {
    keysOf(service) // is there a keychain at all (and is it unlocked)?
    new Entry(service, request.account).setPassword(request.key)
    if (keysOf(service).get(request.account) !== request.key) {
      return { ok: false, reason: 'did not keep the key' }
    }
    return { ok: true, op: 'store' }
  }
  if (!keysOf(service).has(request.account)) return { ok: true, op: 'delete', deleted: false }
  new Entry(service, request.account).deleteCredential()
  if (keysOf(service).has(request.account)) return { ok: false, reason: 'did not delete the key' }
  return { ok: true, op: 'delete', deleted: true }
}

/**
 * What went wrong, in words that finish "the system keychain …". The native messages are
 * summed up, never passed on whole (they can run to a backtrace).
 */
export function reasonOf(error: unknown): string {
  const message = String((error as Error)?.message ?? error).split('\n')[0]
  if (/no secret service provider or dbus session/i.test(message))
    return 'is not available (no D-Bus session or Secret Service)'
  if (/IsLocked|is locked|locked object|unlock prompt/i.test(message)) return 'is locked'
  if (/dismissed/i.test(message)) return 'asked for a password nobody could give'
  if (/no result found/i.test(message)) return 'has no keyring to store keys in'
  if (VANISHED.test(message)) return 'failed (its entries kept changing while pay read them)'
  const short = message.replace(/[^\x20-\x7e]/g, '').slice(0, 120)
  return `failed (${short || 'no reason given'})`
}

/** Whether any 6 characters in a row of `key` appear in `text`. */
function holdsPartOf(text: string, key: string): boolean {
  for (let i = 0; i + 6 <= key.length; i += 1) if (text.includes(key.slice(i, i + 6))) return true
  return false
}

/**
 * Reads one request from stdin, answers it on stdout. A newline first says the helper has started
 * (node and the native module loaded): pay's time limit for the keychain counts from there, so a
 * busy machine's slow start-up is not taken for a keychain that does not answer. The answer's JSON
 * may follow it in the same read, which JSON.parse takes as it is.
 */
export function serveOneRequest(): void {
  process.stdout.write('\n')
  let input = ''
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (chunk: string) => {
    input += chunk
  })
  process.stdin.on('end', () => {
    let request: HelperRequest
    try {
      request = JSON.parse(input) as HelperRequest
    } catch {
      // Never the parser's message: it quotes the input, which may hold a key.
      process.stdout.write(JSON.stringify({ ok: false, reason: 'failed (an unreadable request)' }))
      return
    }
    process.stdout.write(JSON.stringify(respond(request)))
  })
}

/** The answer to one request; a failure of the platform's store summed up in a reason. */
export function respond(request: HelperRequest): HelperAnswer {
  try {
    return answer(request)
  } catch (error) {
    const reason = reasonOf(error)
    const leaky = request.op === 'store' && holdsPartOf(reason, request.key)
    return { ok: false, reason: leaky ? 'failed (its message withheld)' : reason }
  }
}
