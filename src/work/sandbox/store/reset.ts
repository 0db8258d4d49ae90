/**
 * `pay sandbox reset`: through the sandbox that serves the profile, the records of the key's
 * business deleted (other businesses' kept); with none running, for the built-in profile, every
 * record of the local store.
 */
import { loadLocalStore } from '../../../sandbox/index.js'
import type { SandboxContext } from '../where.js'

/** What was emptied, and where. */
export type SandboxReset =
  /** Through the sandbox at `baseUrl`: the records of business `businessId` (null: it did not say). */
  | { server: true; baseUrl: string; businessId: number | null }
  /**
   * The local store in `dir`, no sandbox running at `baseUrl`; `keptAs`: the store was corrupt or
   * from a newer pay, and was set aside as that file.
   */
  | { server: false; dir: string; baseUrl: string; keptAs?: string }

export async function resetSandbox(context: SandboxContext): Promise<SandboxReset> {
  const where = await context.sandboxTarget()
  if (where.server) {
    const done = await where.api.send('sandboxReset')
    const businessId = typeof done.business_id === 'number' ? done.business_id : null
    return { server: true, baseUrl: where.target.baseUrl, businessId }
  }
  const { resetSandbox: resetIn } = await loadLocalStore()
  const { keptAs } = resetIn(where.dir)
  return { server: false, dir: where.dir, baseUrl: where.baseUrl, ...(keptAs ? { keptAs } : {}) }
}
