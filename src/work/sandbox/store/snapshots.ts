import { Args } from '@oclif/core'
import { PayError, usageError } from '../../../errors.js'
import type { View } from '../../../render/views.js'
import { type LocalStore, loadLocalStore } from '../../../sandbox/index.js'

/** `pay sandbox snapshot …`: a snapshot as `{name, saved_at, bytes}`. */
export const SNAPSHOT_VIEW: View = {
  noun: 'snapshot',
  plural: 'snapshots',
  listColumns: ['name', 'saved_at', 'bytes'],
  recordFields: ['name', 'saved_at', 'bytes'],
  idField: 'name',
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
export async function snapshotAction<T>(act: (snapshots: LocalStore) => T): Promise<T> {
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
