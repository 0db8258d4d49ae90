/** The sandbox's store in a directory, acted on with no server (local-store.ts gathers what is done so). */
import fs from 'node:fs'
import path from 'node:path'
import { keyHash } from '../domain/business.js'
import { loadLibsql, STORE_FILE, setAside } from './database.js'
import { StoreCorruptError, StoreVersionError } from './errors.js'
import { LEGACY_FILE } from './legacy.js'
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

/**
 * Whether the store kept in `dir` holds a business of `key`: a row of it in store.db, or pay 0.1's
 * store.json, whose records were all the well-known key's. Read only: nothing is made, migrated
 * or changed; false when there is no store or it cannot be read.
 */
export function holdsBusinessIn(dir: string, key: string): boolean {
  if (fs.existsSync(path.join(dir, LEGACY_FILE))) return true
  const file = path.join(dir, STORE_FILE)
  if (!fs.existsSync(file)) return false
  try {
    const Database = loadLibsql()
    const db = new Database(file, { readonly: true, fileMustExist: true })
    try {
      return db.prepare('SELECT 1 FROM businesses WHERE key_hash = ?').get(keyHash(key)) !== undefined
    } finally {
      db.close()
    }
  } catch {
    return false
  }
}
