import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PayError } from '../errors.js'
import { randomUuid } from '../shared/crypto.js'
import { openPrivate, readPrivate, UnsafeFileError } from '../shared/private-file.js'
import { xdgDir } from '../shared/xdg.js'

/**
 * The journal: every change pay sends (create, update, delete, cancel), appended to a local JSON
 * lines file, mode 0600, so that finance can show what was changed, by whom and when. Each
 * change is written twice: its intent before the request, its outcome after, paired by `change`;
 * a run killed in between leaves the intent, which says the change may have happened. Never the
 * key, never a request body.
 */

export interface JournalEntry {
  at: string
  phase: 'intent' | 'outcome'
  /** Pairs an intent with its outcome. */
  change: string
  command: string
  profile: string
  base_url: string
  method: string
  path: string
  /** "payment link", "subscription", "token". */
  resource: string
  /** The record's _id: from the path, or (a create) from the answer. */
  id?: string
  idempotency_key?: string
  /** Outcome: the HTTP status, or the kind of failure (`unavailable`, `validation`, …). */
  status?: number
  error?: string
  user: string
  terminal: boolean
}

/**
 * A change about to be sent, as the API client describes it (the client's ChangeLog calls
 * `intent`; config knows nothing of the client, so the shape is stated here).
 */
export interface ChangeIntent {
  method: string
  path: string
  resource: string
  id?: string
  idempotencyKey?: string
}

/** How a change ended: its HTTP status, or the kind of failure. */
export interface ChangeEnd {
  status?: number
  error?: string
  id?: string
}

/** Who and where, the same for every change of one run. */
export interface JournalContext {
  command: string
  profile: string
  baseUrl: string
  terminal: boolean
  /** The user the changes are made as (osUser); the system's user when not given. */
  user?: string
}

/**
 * `$PAY_JOURNAL_FILE`, else `journal.jsonl` in pay's data dir (`$XDG_DATA_HOME/pay`, else
 * `~/.local/share/pay`); undefined when `PAY_JOURNAL=0` turns it off.
 */
export function journalFile(env: NodeJS.ProcessEnv): string | undefined {
  if (env.PAY_JOURNAL === '0') return undefined
  if (env.PAY_JOURNAL_FILE) return path.resolve(env.PAY_JOURNAL_FILE)
  return xdgDir('data', env, 'pay', 'journal.jsonl')
}

/** The user pay runs as: the system's name for it, else $USER (a uid with no passwd entry, in a container). */
export function osUser(env: NodeJS.ProcessEnv): string {
  try {
    return os.userInfo().username
  } catch {
    return env.USER ?? 'unknown'
  }
}

export class Journal {
  private readonly user: string
  private failed = false
  /** The file, open for appending from the first entry of the run until close(). */
  private fd: number | undefined

  constructor(
    readonly file: string,
    private readonly context: JournalContext,
    /** Told once if the journal cannot be written (the change goes on, unrecorded). */
    private readonly warn: (message: string) => void,
  ) {
    this.user = context.user ?? osUser({})
  }

  /** Writes the intent; returns what writes the outcome. */
  intent(start: ChangeIntent): (end: ChangeEnd) => void {
    const change = randomUuid()
    const base = {
      change,
      command: this.context.command,
      profile: this.context.profile,
      base_url: this.context.baseUrl,
      method: start.method,
      path: start.path,
      resource: start.resource,
      ...(start.idempotencyKey ? { idempotency_key: start.idempotencyKey } : {}),
      user: this.user,
      terminal: this.context.terminal,
    }
    this.append({
      at: new Date().toISOString(),
      phase: 'intent',
      ...base,
      ...(start.id ? { id: start.id } : {}),
    })
    return (end) => {
      const id = end.id ?? start.id
      this.append({
        at: new Date().toISOString(),
        phase: 'outcome',
        ...base,
        ...(id ? { id } : {}),
        ...(end.status !== undefined ? { status: end.status } : {}),
        ...(end.error ? { error: end.error } : {}),
      })
    }
  }

  /** Closes the file, at the end of the run (an entry after it opens the file again). */
  close(): void {
    if (this.fd === undefined) return
    try {
      fs.closeSync(this.fd)
    } catch {}
    this.fd = undefined
  }

  private append(entry: JournalEntry): void {
    if (this.failed) return
    try {
      // Opened once a run, not once an entry: a bulk run writes two entries a change. Never
      // through a symbolic link, never into a FIFO (whose open would wait for a reader forever).
      if (this.fd === undefined) {
        fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 })
        this.fd = openPrivate(this.file, 'append')
      }
      // One write of one line with O_APPEND: lines of processes writing at once never mix, and
      // the line is the kernel's (a kill -9 of pay keeps it) before the request is sent.
      fs.writeSync(this.fd, `${JSON.stringify(entry)}\n`)
    } catch (error) {
      this.close()
      this.failed = true
      const why =
        error instanceof UnsafeFileError
          ? error.reason === 'symlink'
            ? 'it is a symbolic link'
            : 'it is not a regular file'
          : ((error as NodeJS.ErrnoException).code ?? (error as Error).message)
      this.warn(
        `Could not write the journal ${this.file} (${why}); ` +
          'the changes of this run go unrecorded. PAY_JOURNAL_FILE moves it, PAY_JOURNAL=0 turns it off.',
      )
    }
  }
}

/** The entries of a journal file, oldest first; lines that are not entries are left out. */
export function readJournal(file: string): JournalEntry[] {
  let text: string | undefined
  try {
    text = readPrivate(file)
  } catch (error) {
    const reason = error instanceof UnsafeFileError ? error.message : (error as Error).message
    throw new PayError(`Cannot read the journal: ${reason}.`, {
      kind: 'general',
      hint: 'PAY_JOURNAL_FILE names the journal file; PAY_JOURNAL=0 turns it off.',
    })
  }
  if (text === undefined) return []
  const entries: JournalEntry[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const entry = JSON.parse(line) as JournalEntry
      if (typeof entry === 'object' && entry !== null && typeof entry.change === 'string') entries.push(entry)
    } catch {
      // A line cut short by a crash (kill -9 mid-write) is left out; the rest still reads.
    }
  }
  return entries
}
