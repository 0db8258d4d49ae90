import fs from 'node:fs'
import path from 'node:path'
import { PrivateFileError } from './private-file.js'
import { xdgDir } from './xdg.js'

/**
 * Where the sandbox keeps its store: `$PAY_SANDBOX_DIR`, else the XDG data dir. The caller hands
 * in the environment (the CLI its own; the sandbox is handed a directory and never looks).
 */
export function sandboxDir(env: NodeJS.ProcessEnv): string {
  if (env.PAY_SANDBOX_DIR) return path.resolve(env.PAY_SANDBOX_DIR)
  return xdgDir('data', env, 'pay', 'sandbox')
}

const ownUid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined)

/**
 * Makes the sandbox directory (0700) when missing. One that exists must be a directory of this
 * user (a link to another user's is refused); group and other permissions are taken away, since
 * it holds the store, the proof's secret and the key.
 */
export function ensureSandboxDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = fs.statSync(dir)
  if (!stat.isDirectory()) throw new PrivateFileError(`The sandbox directory ${dir} is not a directory.`)
  if (process.platform === 'win32') return
  const uid = ownUid()
  if (uid !== undefined && stat.uid !== uid) {
    throw new PrivateFileError(
      `The sandbox directory ${dir} belongs to another user: use a directory of your own.`,
    )
  }
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700)
}
