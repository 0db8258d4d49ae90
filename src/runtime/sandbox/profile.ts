import path from 'node:path'
import type { BuiltInProfile } from '../../config/profiles.js'
import { PayError } from '../../errors.js'
import { DEFAULT_SANDBOX_PORT, loadLocalStore, SANDBOX_KEY } from '../../sandbox/index.js'
import { type OwnKey, ownSandboxKey, SANDBOX_KEY_FILE } from '../../shared/sandbox-key.js'
import type { Env } from '../context.js'
import { type Probed, portOf } from './connection.js'

/**
 * The built-in profile `sandbox`: the key of the sandbox directory `dir` (src/shared/sandbox-key.ts),
 * at the sandbox's port on loopback. The key is read (or made, when the directory has none yet)
 * the first time it is asked for: a run that never uses the profile touches no file.
 * `keyMadeOverStore`: this run made it, over a store an earlier pay kept there (madeOverOldStore).
 */
export function sandboxProfile(env: Env, dir: string): BuiltInProfile {
  let own: OwnKey | undefined
  return {
    name: 'sandbox',
    get apiKey() {
      own ??= ownSandboxKey(dir)
      return own.key
    },
    baseUrl: `http://127.0.0.1:${env.PAY_SANDBOX_PORT || DEFAULT_SANDBOX_PORT}`,
    get keyMadeOverStore() {
      return own?.made === true && own.overStore
    },
  }
}

/** Said when a sandbox directory's key was made (src/shared/sandbox-key.ts). */
export const madeKeyNotice = (dir: string): string =>
  `Made an API key for this sandbox directory, kept in ${path.join(dir, SANDBOX_KEY_FILE)} (readable by you ` +
  'alone): `pay -p sandbox` sends it. The well-known sandbox key is served only when given by name.'

/**
 * Said too when that key was made over a store whose records are the well-known key's, as an
 * earlier pay kept them: where they are, and how to reach them.
 */
export const RECORDS_BEFORE =
  'The records kept in this directory before are under the well-known sandbox key, as earlier versions ' +
  `served it: reach them with PAY_API_KEY=${SANDBOX_KEY}, or serve that key by name ` +
  `(PAY_SANDBOX_KEYS=${SANDBOX_KEY} pay sandbox start).`

/**
 * What to say when the key of `dir` was made over a store (`overStore`): the key made, and where
 * the records kept before are when they are the well-known key's; undefined when there is nothing
 * to say. Reads the store only then.
 */
export async function madeOverOldStore(dir: string): Promise<string | undefined> {
  const { holdsBusinessIn } = await loadLocalStore()
  return holdsBusinessIn(dir, SANDBOX_KEY) ? `${madeKeyNotice(dir)} ${RECORDS_BEFORE}` : undefined
}

/**
 * Said when a listener on the sandbox profile's port did not prove it is the user's sandbox,
 * whose store is in `dir`.
 */
export function squatterWarning(
  baseUrl: string,
  dir: string,
  instead = 'this command ran its own sandbox in-process',
): string {
  return (
    `Something else holds port ${portOf(baseUrl)}: it is not your sandbox (it could not prove it keeps its ` +
    `store in ${dir}). It was sent nothing: ${instead}.`
  )
}

/** How to have a sandbox pay trusts (the user's keeps its store in `dir`). */
export const proofHint = (command: string, dir: string) =>
  `\`${command}\` sends its key and data only to your own sandbox: one started with \`pay sandbox start\` ` +
  `with the same PAY_SANDBOX_DIR (${dir}).`

/** What a page address printed by a command that ran the sandbox in-process leads to. */
export function unservedWarning(origin: string, squatter: boolean, what: string): string {
  const them = what === 'this page' ? 'it' : 'them'
  if (squatter) {
    return (
      `${capitalise(what)} point${what === 'this page' ? 's' : ''} at ${origin}, where that other program answers, not your sandbox. ` +
      `Serve ${them} from yours on a free port (\`pay sandbox start --port 0\`, then PAY_SANDBOX_PORT set to its port).`
    )
  }
  return (
    `No sandbox is running at ${origin}, so ${what} will not open: the sandbox ran inside this command. ` +
    `Serve ${them} with \`pay sandbox start\` (PAY_SANDBOX_PORT sets the port).`
  )
}

const capitalise = (text: string) => text[0].toUpperCase() + text.slice(1)

/**
 * A sandbox the built-in profile is pointed at with --base-url must have proved it is the user's
 * own (src/sandbox/http/proof.ts) before it is sent anything. (The sandbox commands' refusal is
 * noSandbox's: its words and hints differ.)
 */
export function refuseUnproven(baseUrl: string, found: Probed, command: string, dir: string): void {
  if (found === 'proven') return
  const hint = proofHint(command, dir)
  if (found === 'none') {
    throw new PayError(`No pay sandbox answers at ${baseUrl}.`, { kind: 'unavailable', hint })
  }
  const what = found === 'unproven' ? 'could not prove it is your sandbox' : 'is not a pay sandbox'
  throw new PayError(`${baseUrl} ${what}: nothing was sent to it.`, { kind: 'general', hint })
}

/**
 * Why a sandbox command (`sandbox pay`, `sandbox reset`) cannot act at a base URL that is not
 * the built-in profile's: what answers there (`found`) is no sandbox, or not the user's, or
 * nothing.
 */
export function noSandbox(
  command: string,
  credentials: { baseUrl: string; profile?: string },
  found: Exclude<Probed, 'proven'>,
  dir: string,
): PayError {
  const named = credentials.profile === undefined ? '' : ` (profile "${credentials.profile}")`
  const hint =
    `\`${command}\` acts only on a sandbox: start one there with \`pay sandbox start\`, ` +
    'or use `-p sandbox` (without --base-url) for the local sandbox store.'
  if (found === 'other') {
    return new PayError(`${credentials.baseUrl}${named} is not a pay sandbox.`, { kind: 'general', hint })
  }
  if (found === 'unproven') {
    return new PayError(
      `${credentials.baseUrl}${named} could not prove it is your sandbox: nothing was sent to it.`,
      { kind: 'general', hint: proofHint(command, dir) },
    )
  }
  return new PayError(`No pay sandbox answers at ${credentials.baseUrl}${named}.`, {
    kind: 'unavailable',
    hint,
  })
}
