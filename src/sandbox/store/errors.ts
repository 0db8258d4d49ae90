import { errorCode } from './files.js'
import { MIGRATIONS } from './schema.js'

/** What can go wrong with the sandbox's database file, as the server answers it (http/reply.ts). */

export class StoreCorruptError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(
      `The sandbox store ${file} is corrupt (${reason}). It was left untouched; ` +
        `"pay sandbox reset" sets it aside and starts an empty one.`,
    )
    this.name = 'StoreCorruptError'
  }
}

/** The database belongs to a newer pay: its tables are not the ones this pay knows. */
export class StoreVersionError extends Error {
  constructor(file: string, version: number) {
    super(
      `The sandbox store ${file} was written by a newer pay (schema version ${version}; this pay ` +
        `knows up to ${MIGRATIONS.length}). Use that pay, or another PAY_SANDBOX_DIR; ` +
        `"pay sandbox reset" sets it aside and starts an empty one.`,
    )
    this.name = 'StoreVersionError'
  }
}

/** Another process held the database longer than the busy timeout. */
export class StoreBusyError extends Error {
  constructor() {
    super('The sandbox store is busy.')
    this.name = 'StoreBusyError'
  }
}

/** SQLITE_BUSY or SQLITE_LOCKED: another process held the database past the busy timeout. */
export const isBusy = (code: string | undefined): boolean =>
  code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED'

/**
 * A database error as the store's: busy (StoreBusyError), corrupt (StoreCorruptError naming
 * `file`); any other error as it is.
 */
export function storeErrorOf(error: unknown, file: string): unknown {
  const code = errorCode(error)
  if (isBusy(code)) return new StoreBusyError()
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
    return new StoreCorruptError(file, (error as Error).message)
  }
  return error
}
