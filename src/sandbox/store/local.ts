/** The sandbox's store in a directory, acted on with no server (local-store.ts gathers what is done so). */
import { setAside } from './database.js'
import { StoreCorruptError, StoreVersionError } from './errors.js'
import { SandboxStore } from './store.js'

/** Runs `body` on the store in `dir`, opened for it and closed after (the local store's commands). */
export function inStore<T>(dir: string, body: (store: SandboxStore) => T): T {
  const store = new SandboxStore(dir)
  try {
    return body(store)
  } finally {
    store.close()
  }
}

/** Whether link `linkId` of the store in `dir` is paid (`pay sandbox pay` says when paying changes nothing). */
export function linkPaidIn(dir: string, linkId: string): boolean {
  return inStore(dir, (store) => store.findLink(linkId)?.paid === true)
}

/**
 * Empties the store in `dir`. A store that cannot be opened (corrupt, or from a newer pay) is set
 * aside first, never deleted: returns where it was kept.
 */
export function resetSandbox(dir: string): { keptAs?: string } {
  let store: SandboxStore
  let keptAs: string | undefined
  try {
    store = new SandboxStore(dir)
  } catch (error) {
    if (!(error instanceof StoreCorruptError || error instanceof StoreVersionError)) throw error
    keptAs = setAside(dir)
    store = new SandboxStore(dir)
  }
  try {
    store.empty()
  } finally {
    store.close()
  }
  return { keptAs }
}
