/**
 * The one entry of the sandbox for the CLI (src/cli, src/commands; the lint lets nothing else in):
 * what the client may know of the service it runs. Constants, the fault grammar and the seeded
 * packages load with it (they are small and import nothing heavy); the server, the store (and
 * libsql with it) and the proof load only when a command calls for them, so that `pay --version`
 * or `pay links get` never load the sandbox.
 */
import type { RunningSandbox, SandboxOptions } from './http/server.js'

export { DEFAULT_SANDBOX_PORT, MAX_BODY_BYTES, OUTCOMES, type Outcome, SANDBOX_KEY } from './constants.js'
export { listPackages } from './domain/business.js'
export { type FaultList, MAX_SEED } from './handlers/double/fault-sets.js'
export { FAULT_GRAMMAR, parseFaultRule } from './handlers/double/faults.js'
export type { Attempted } from './handlers/notify/notifier.js'
export type { DeliveryRecord, EndpointRecord } from './handlers/notify/outbox.js'
export type { RequestLogEntry, RunningSandbox, SandboxOptions } from './http/server.js'
export type { Notice } from './store/legacy.js'

/** Serves the sandbox from the store in `options.dir` until `close()` (http/server.ts). */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const server = await import('./http/server.js')
  return server.startSandbox(options)
}

/** The operations on a sandbox directory with no server: settle a link, the clock, seeding, snapshots, reset. */
export const loadLocalStore = () => import('./local-store.js')

/** The client's half of the proof that a sandbox is the user's own (http/proof.ts). */
export async function loadProofCheck() {
  const { clientSecret, endpointOf, isProof, newChallenge } = await import('./http/proof.js')
  return { clientSecret, endpointOf, isProof, newChallenge }
}

/** What loadLocalStore gives. */
export type LocalStore = Awaited<ReturnType<typeof loadLocalStore>>
