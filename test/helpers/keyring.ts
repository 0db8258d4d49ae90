import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { tempDir } from './cli.js'

/**
 * A real Secret Service for the keychain tests: a private D-Bus session (dbus-run-session) with
 * gnome-keyring-daemon in it, its login keyring unlocked with a password, in a HOME and
 * XDG_RUNTIME_DIR of its own. The session lives until `close`; pay runs as usual, with the
 * session's DBUS_SESSION_BUS_ADDRESS (and HOME), and `secret-tool` looks at what it stored.
 */
const TOOLS = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool']
const MISSING_TOOLS = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
export const HAS_KEYRING = MISSING_TOOLS.length === 0

/**
 * Whether the keychain tests run: where the tools are, and always under CI (CI set), where a
 * missing tool fails them (startKeyring says which) instead of skipping them unseen. A developer
 * without the tools (macOS, Windows, a bare Linux) skips them.
 */
export const RUN_KEYRING_TESTS = HAS_KEYRING || Boolean(process.env.CI)

// Inside the session: the keyring daemon in the foreground (so that this shell reaps it), unlocked
// with the password on its stdin; the bus address once the Secret Service is on the bus; then it
// waits until the test closes stdin.
const SESSION_SCRIPT = `
printf %s pay-test-password | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
daemon=$!
tries=0
until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; do
  tries=$((tries + 1))
  if [ $tries -gt 250 ]; then echo "no Secret Service on the bus" >&2; exit 1; fi
  sleep 0.02
done
echo "$DBUS_SESSION_BUS_ADDRESS"
cat >/dev/null
kill $daemon
wait $daemon
`

export interface KeyringSession {
  /** What pay and secret-tool need to reach this keyring: the bus address, HOME, the XDG dirs. */
  env: Record<string, string>
  /** The HOME the keyring daemon keeps its files under (~/.local/share/keyrings). */
  home: string
  /** `secret-tool lookup service pay username ACCOUNT`: the secret, or undefined. */
  lookup(account: string): string | undefined
  /** The accounts stored under the service "pay" (`secret-tool search --all service pay`). */
  accounts(): string[]
  /** `secret-tool clear service pay username ACCOUNT`: the entry vanishes behind pay's back. */
  clear(account: string): void
  /** `secret-tool store` of an entry of the service "pay" (without blocking the tests). */
  store(account: string, secret: string): Promise<void>
  /** `store`, then `clear`. */
  storeAndClear(account: string, secret: string): Promise<void>
  /** Locks the login keyring (its password would be needed again: no keychain, for pay). */
  lock(): void
  close(): Promise<void>
}

/**
 * Where a keyring's files go: memory (/dev/shm) where there is one, since the daemon writes its
 * keyring file, and syncs it, on every change, which a disk busy with the rest of the suite can
 * hold up for seconds.
 */
function keyringRoot(): string {
  try {
    return fs.mkdtempSync(path.join('/dev/shm', 'pay-keyring-'))
  } catch {
    return tempDir('pay-keyring-')
  }
}

/** Starts a session with an unlocked keyring, under `root` (a new temp dir by default). */
export async function startKeyring(root = keyringRoot()): Promise<KeyringSession> {
  if (!HAS_KEYRING) {
    throw new Error(
      `The keychain tests need ${MISSING_TOOLS.join(', ')} (Debian: apt-get install gnome-keyring dbus libsecret-tools; .ci/run installs them).`,
    )
  }
  const home = path.join(root, 'home')
  const runtime = path.join(root, 'run')
  fs.mkdirSync(home, { recursive: true })
  fs.mkdirSync(runtime, { recursive: true, mode: 0o700 })
  const base = {
    HOME: home,
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_RUNTIME_DIR: runtime,
  }
  const session: ChildProcess = spawn('dbus-run-session', ['--', 'sh', '-c', SESSION_SCRIPT], {
    env: { ...process.env, ...base, DBUS_SESSION_BUS_ADDRESS: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  session.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const address = await new Promise<string>((resolve, reject) => {
    let stdout = ''
    session.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0])
    })
    session.on('error', reject)
    session.on('exit', (code) => reject(new Error(`the keyring session ended (${code}): ${stderr}`)))
  })
  const env = { ...base, DBUS_SESSION_BUS_ADDRESS: address }
  const secretToolAsync = (args: string[], input: string) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn('secret-tool', args, {
        env: { ...process.env, ...env },
        stdio: ['pipe', 'ignore', 'pipe'],
      })
      let stderr = ''
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk
      })
      child.on('error', reject)
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`secret-tool ${args[0]} failed: ${stderr}`)),
      )
      child.stdin?.end(input)
    })
  const store = (account: string, secret: string) =>
    secretToolAsync(['store', '--label', account, 'service', 'pay', 'username', account], secret)
  const secretTool = (args: string[]) =>
    spawnSync('secret-tool', args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 10_000 })
  // The first change makes the login keyring (its file, its key from the password), which takes
  // the daemon most of a second, longer on a busy machine: done here, not in the first test's 3 s.
  await store('pay-test-warm-up', 'warm-up')
  await secretToolAsync(['clear', 'service', 'pay', 'username', 'pay-test-warm-up'], '')
  return {
    env,
    home,
    lookup(account) {
      const result = secretTool(['lookup', 'service', 'pay', 'username', account])
      return result.status === 0 ? result.stdout : undefined
    },
    accounts() {
      const result = secretTool(['search', '--all', 'service', 'pay'])
      // secret-tool prints the attributes on stderr and the secrets on stdout.
      const text = `${result.stdout}\n${result.stderr}`
      return [...text.matchAll(/^attribute\.username = (.*)$/gm)].map((match) => match[1]).sort()
    },
    clear(account) {
      const result = secretTool(['clear', 'service', 'pay', 'username', account])
      if (result.status !== 0) throw new Error(`secret-tool clear failed: ${result.stderr}`)
    },
    store,
    async storeAndClear(account, secret) {
      await store(account, secret)
      await secretToolAsync(['clear', 'service', 'pay', 'username', account], '')
    },
    lock() {
      const result = spawnSync(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.freedesktop.secrets',
          '/org/freedesktop/secrets',
          'org.freedesktop.Secret.Service.Lock',
          'array:objpath:/org/freedesktop/secrets/collection/login',
        ],
        { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 10_000 },
      )
      if (result.status !== 0) throw new Error(`locking the keyring failed: ${result.stderr}`)
    },
    async close() {
      if (session.exitCode === null && session.signalCode === null) {
        const ended = new Promise((resolve) => session.once('exit', resolve))
        session.stdin?.end()
        await ended
      }
      fs.rmSync(root, { recursive: true, force: true })
    },
  }
}

/**
 * A D-Bus address that accepts connections and never answers a byte: a session bus that hangs.
 * Every connection is counted (and kept open until `close`).
 */
export async function startDeadBus(): Promise<{
  address: string
  connections: () => number
  close: () => Promise<void>
}> {
  const socketPath = path.join(tempDir('pay-dead-bus-'), 'bus')
  const sockets: net.Socket[] = []
  const server = net.createServer((socket) => {
    sockets.push(socket)
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(socketPath, resolve))
  return {
    address: `unix:path=${socketPath}`,
    connections: () => sockets.length,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/**
 * The kernel keys (keyutils) this process can see whose description holds `text`, from
 * /proc/keys; undefined where there is no /proc/keys. @napi-rs/keyring falls back to keyutils
 * when there is no Secret Service, naming its keys `keyring:ACCOUNT@SERVICE`: pay must not.
 */
export function kernelKeysNaming(text: string): string[] | undefined {
  let keys: string
  try {
    keys = fs.readFileSync('/proc/keys', 'utf8')
  } catch {
    return undefined
  }
  return keys.split('\n').filter((line) => line.includes(text))
}
