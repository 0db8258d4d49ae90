import fs from 'node:fs'
import path from 'node:path'
import type Libsql from 'libsql'
import {
  type Connection,
  type Database,
  identityOf,
  openConnection,
  rollBack,
  STORE_FILE,
} from './database.js'
import { StoreCorruptError, storeErrorOf } from './errors.js'
import { errorCode } from './files.js'
import type { Notice } from './legacy.js'

/**
 * The store's connection and its transactions (store.ts holds the records): writes one at a time
 * (`write`), reads that see one commit (`read`), and the group commit of a server's requests
 * (`grouped`).
 *
 * Group commit: the writes a server answers in one turn of the event loop share one write
 * transaction, each in a savepoint of its own (a request that fails undoes only its own part),
 * committed once at the end of the turn (setImmediate). A request's promise resolves only after that
 * commit: nothing is answered before it is written, so an answered write survives a kill -9 as
 * before, and a commit costs one WAL write for the whole group rather than one per request.
 * Anything else that touches a database in this process while a group is open (a local store of
 * the library, a snapshot, a read outside a request) commits every open group first: a second
 * connection of this process would otherwise wait for a lock that this very thread holds.
 */

/** A request's part of a group: told when the group is committed, or why it could not be. */
interface Member {
  resolve: () => void
  reject: (error: unknown) => void
}

interface Group {
  connection: Connection
  members: Member[]
  /** What runs once the group is committed (afterCommit), of its requests that were not undone. */
  committed: (() => void)[]
}

/** `sql` prepared once a connection: a request's savepoint too (exec would parse it every time). */
function prepared(connection: Connection, sql: string): Libsql.Statement {
  let statement = connection.statements.get(sql) as Libsql.Statement | undefined
  if (!statement) {
    statement = connection.db.prepare(sql)
    connection.statements.set(sql, statement)
  }
  return statement
}

/** Stores of this process with a group open. */
const OPEN = new Set<Transactions>()

/** Commits every group open in this process (before another connection of it begins anything). */
export function settleGroups(): void {
  for (const store of [...OPEN]) store.settle()
}

/** A statement that writes what sandbox time or billing reads: the clock, schedules, charges. */
const BILLING_WRITE = /\b(clock|schedules|charges|subscriptions)\b/i

export class Transactions {
  readonly file: string
  /** What opening the store did that a person should hear of (an import of store.json). */
  readonly notices: Notice[] = []
  private current: Connection | undefined
  /** The connection of the transaction under way: every call inside it uses that one. */
  private active: Connection | undefined
  /** Calls under way: only the outermost converts errors. */
  private depth = 0
  private group: Group | undefined
  /** What runs once the transaction under way (or the request's part of a group) is committed. */
  private onCommit: (() => void)[] | undefined
  /** PRAGMA data_version when last read: it changes when another connection commits. */
  private dataVersion: number | undefined
  private billingGeneration = 0
  /** Whether each statement run writes what billing reads (BILLING_WRITE), by its SQL. */
  private readonly billingWrites = new Map<string, boolean>()

  constructor(
    readonly dir: string,
    /** Pages of WAL between checkpoints (openConnection); SQLite's default unless given. */
    private readonly checkpointPages?: number,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    this.file = path.join(dir, STORE_FILE)
    this.connection()
  }

  /** Runs `body` as one write transaction: all of it is committed, or none of it. */
  write<T>(body: () => T): T {
    if (this.active) return body()
    return this.guard(() => {
      settleGroups()
      const connection = this.connection()
      connection.db.exec('BEGIN IMMEDIATE')
      this.active = connection
      const committed: (() => void)[] = []
      this.onCommit = committed
      try {
        this.readDataVersion()
        const result = body()
        connection.db.exec('COMMIT')
        this.onCommit = undefined
        for (const then of committed) then()
        return result
      } catch (error) {
        rollBack(connection.db)
        throw error
      } finally {
        this.active = undefined
        this.onCommit = undefined
      }
    })
  }

  /**
   * Runs `then` once what was written so far is committed: at once outside a transaction, at the
   * commit of the transaction under way, or of the group a request's part is in (after its
   * requests are answered); never when it is undone. What tells the world of a write (a
   * notification sent) must not go out before the write is one a kill -9 keeps.
   */
  afterCommit(then: () => void): void {
    if (this.onCommit) this.onCommit.push(then)
    else then()
  }

  /** Runs `body` in one read transaction: every read in it sees the same commit. */
  read<T>(body: () => T): T {
    if (this.active) return body()
    return this.guard(() => {
      settleGroups()
      const connection = this.connection()
      connection.db.exec('BEGIN')
      this.active = connection
      try {
        this.readDataVersion()
        return body()
      } finally {
        this.active = undefined
        if (connection.db.inTransaction) connection.db.exec('COMMIT')
      }
    })
  }

  /**
   * Runs `body` (which must not wait) as one request of the group of this turn of the event loop
   * (see above): its writes are undone if it throws; its promise resolves with its value once the
   * group is committed, or rejects if the commit fails.
   */
  grouped<T>(body: () => T): Promise<T> {
    let value: T
    let group: Group | undefined
    try {
      if (this.active) return Promise.resolve(body())
      value = this.guard(() => {
        group = this.group ?? this.openGroup()
        return this.inSavepoint(group, body)
      })
    } catch (error) {
      return Promise.reject(error)
    }
    const members = (group as Group).members
    return new Promise<T>((resolve, reject) => members.push({ resolve: () => resolve(value), reject }))
  }

  /** One request of a group: its writes undone if it throws (the whole group's if they cannot be). */
  private inSavepoint<T>(group: Group, body: () => T): T {
    const step = (sql: string) => prepared(group.connection, sql).run()
    step('SAVEPOINT request')
    this.active = group.connection
    const committed: (() => void)[] = []
    this.onCommit = committed
    try {
      const result = body()
      if (result instanceof Promise) throw new TypeError('A grouped request must answer at once.')
      step('RELEASE request')
      group.committed.push(...committed)
      return result
    } catch (error) {
      try {
        step('ROLLBACK TO request')
        step('RELEASE request')
      } catch {
        this.abandonGroup(error)
      }
      throw error
    } finally {
      this.active = undefined
      this.onCommit = undefined
    }
  }

  /** Commits the open group, if any: its requests' promises resolve (or all reject). */
  settle(): void {
    const group = this.group
    if (!group) return
    this.group = undefined
    OPEN.delete(this)
    try {
      group.connection.db.exec('COMMIT')
    } catch (error) {
      rollBack(group.connection.db)
      const converted = storeErrorOf(error, this.file)
      for (const member of group.members) member.reject(converted)
      if (converted instanceof StoreCorruptError) this.close()
      return
    }
    for (const member of group.members) member.resolve()
    for (const then of group.committed) then()
  }

  /**
   * A number that changes whenever sandbox time or what is due may have changed: another
   * connection committed, or this one wrote the clock, the schedules or the charges. Billing keeps
   * what it read under it (store/clock.ts), so a request reads the clock only when it moved.
   */
  billingVersion(): number {
    // In a transaction no other connection can have committed since it began (which read it).
    if (!this.active) this.readDataVersion()
    return this.billingGeneration
  }

  close(): void {
    this.settle()
    this.current?.db.close()
    this.current = undefined
  }

  /** The database of the transaction under way, else the open one. Whatever it does may touch billing. */
  protected db(): Database {
    this.billingGeneration++
    if (!this.active) settleGroups()
    return (this.active ?? this.connection()).db
  }

  /** Runs a prepared statement on the connection in use. */
  protected run(sql: string, mode: 'get' | 'all' | 'run', ...parameters: unknown[]): unknown {
    if (mode === 'run' && this.writesBilling(sql)) this.billingGeneration++
    if (!this.active && OPEN.size > 0) settleGroups()
    return this.guard(() => {
      return prepared(this.active ?? this.connection(), sql)[mode](...parameters)
    })
  }

  /** The database's errors as the store's: busy (503), corrupt (500 naming the file). */
  protected guard<T>(body: () => T): T {
    this.depth++
    try {
      return body()
    } catch (error) {
      if (this.depth > 1) throw error
      const converted = storeErrorOf(error, this.file)
      // The next call opens the file again: `pay sandbox reset` may have replaced it.
      if (converted instanceof StoreCorruptError) this.close()
      throw converted
    } finally {
      this.depth--
    }
  }

  private writesBilling(sql: string): boolean {
    let writes = this.billingWrites.get(sql)
    if (writes === undefined) {
      writes = BILLING_WRITE.test(sql)
      this.billingWrites.set(sql, writes)
    }
    return writes
  }

  private openGroup(): Group {
    settleGroups()
    const connection = this.connection()
    connection.db.exec('BEGIN IMMEDIATE')
    const group: Group = { connection, members: [], committed: [] }
    this.group = group
    OPEN.add(this)
    setImmediate(() => this.settle())
    this.active = connection
    try {
      this.readDataVersion()
    } finally {
      this.active = undefined
    }
    return group
  }

  /** Rolls back the open group: every request of it is told why. */
  private abandonGroup(error: unknown): void {
    const group = this.group
    if (!group) return
    this.group = undefined
    OPEN.delete(this)
    rollBack(group.connection.db)
    for (const member of group.members) member.reject(error)
  }

  /** Reads PRAGMA data_version; another connection's commit since the last read moves billingVersion. */
  private readDataVersion(): void {
    const row = this.run('PRAGMA data_version', 'get') as { data_version: number }
    const version = Number(row.data_version)
    if (version !== this.dataVersion) {
      this.dataVersion = version
      this.billingGeneration++
    }
  }

  /**
   * The open connection, checked against the file at the path (one stat): a file deleted or
   * replaced behind the store's back (its directory removed, a corrupt file set aside by a
   * reset) is opened again, so that nothing is written into a file no one will read.
   */
  private connection(): Connection {
    let identity: string | undefined
    try {
      identity = identityOf(fs.statSync(this.file))
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error
      fs.statSync(this.dir) // a vanished directory is an error, not recreated behind the user's back
    }
    if (this.current && this.current.identity === identity) return this.current
    this.close()
    settleGroups()
    this.current = openConnection(this.file, this.dir, this.notices, this.checkpointPages)
    // Another connection: its data_version counts anew.
    this.dataVersion = undefined
    return this.current
  }
}
