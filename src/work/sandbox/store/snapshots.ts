import { Args } from '@oclif/core'
import { PayError, usageError } from '../../../errors.js'
import type { RunContext } from '../../../runtime/context.js'
import { type LocalStore, loadLocalStore } from '../../../sandbox/index.js'

/**
 * `pay sandbox snapshot save|restore|delete|list`: named copies of the sandbox database of
 * $PAY_SANDBOX_DIR, on local files only (no server is asked).
 */

/** A snapshot: its name, when it was saved (ISO 8601), its size. */
export interface Snapshot {
  [field: string]: unknown
  name: string
  saved_at: string
  bytes: number
}

/** A snapshot acted on, and the sandbox directory it is of (for the message). */
export interface SnapshotDone {
  snapshot: Snapshot
  dir: string
}

type SnapshotContext = Pick<RunContext, 'sandboxDir'>

/** `snapshot save NAME`: the database copied as snapshot NAME; `replaced`: one of that name was there. */
export async function saveSnapshot(
  options: { name: string },
  context: SnapshotContext,
): Promise<SnapshotDone & { replaced: boolean }> {
  const dir = context.sandboxDir
  const { replaced, ...snapshot } = await snapshotAction((s) => s.saveSnapshot(dir, options.name))
  return { snapshot, replaced, dir }
}

/** `snapshot restore NAME`: the database replaced by snapshot NAME's records. */
export async function restoreSnapshot(
  options: { name: string },
  context: SnapshotContext,
): Promise<SnapshotDone> {
  const dir = context.sandboxDir
  return { snapshot: { ...(await snapshotAction((s) => s.restoreSnapshot(dir, options.name))) }, dir }
}

/** `snapshot delete NAME`: its file deleted (the database itself is not touched). */
export async function deleteSnapshot(
  options: { name: string },
  context: SnapshotContext,
): Promise<SnapshotDone> {
  const dir = context.sandboxDir
  return { snapshot: { ...(await snapshotAction((s) => s.deleteSnapshot(dir, options.name))) }, dir }
}

/** `snapshot list`: the snapshots, by name. */
export async function listSnapshots(context: SnapshotContext): Promise<Snapshot[]> {
  const snapshots = await snapshotAction((s) => s.listSnapshots(context.sandboxDir))
  return snapshots.map((snapshot) => ({ ...snapshot }))
}

/** The NAME argument of save, restore and delete. */
export const snapshotNameArg = Args.string({
  description: 'Snapshot name: letters, digits, ".", "_" and "-", at most 64.',
  required: true,
  ignoreStdin: true,
})

/**
 * Runs a snapshot operation of the sandbox's local store, its errors as pay's: a name that cannot
 * be one is a usage error (2), no such snapshot not found (5), anything else exit 1.
 */
async function snapshotAction<T>(act: (snapshots: LocalStore) => T): Promise<T> {
  const snapshots = await loadLocalStore()
  try {
    return act(snapshots)
  } catch (error) {
    if (!(error instanceof snapshots.SnapshotError)) throw error
    if (error.reason === 'name') throw usageError(error.message)
    if (error.reason === 'missing') {
      throw new PayError(error.message, {
        kind: 'not_found',
        hint: '`pay sandbox snapshot list` shows them.',
      })
    }
    throw new PayError(error.message, { kind: 'general' })
  }
}
