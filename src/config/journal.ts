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
  /**
   * `found`: what a later run found of the record, for no request of its own (a resume reading a
   * subscription cancelled already): it settles an intent of the same kind and path left with no
   * outcome. An earlier pay reads only intents and outcomes, and skips it.
   */
  phase: 'intent' | 'outcome' | 'found'
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
  /** A `found` entry: what the record was found to be, in pay's word (`cancelled`, `gone`). */
  found?: string
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
  /** The file's size after this run's last entry (where it ended), while the file is open. */
  private end: number | undefined

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
    const base = this.entryOf(start)
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

  /** Writes what the record of `start` was found to be (`cancelled`), by a run that sent no such change. */
  found(start: ChangeIntent, state: string): void {
    this.append({
      at: new Date().toISOString(),
      phase: 'found',
      ...this.entryOf(start),
      ...(start.id ? { id: start.id } : {}),
      found: state,
    })
  }

  /** What every entry of a change says: who, where, which request; a new change id. */
  private entryOf(start: ChangeIntent) {
    return {
      change: randomUuid(),
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
  }

  /** Closes the file, at the end of the run (an entry after it opens the file again). */
  close(): void {
    if (this.fd === undefined) return
    try {
      fs.closeSync(this.fd)
    } catch {}
    this.fd = undefined
    this.end = undefined
  }

  private append(entry: JournalEntry): void {
    if (this.failed) return
    try {
      // Opened once a run, not once an entry: a bulk run writes two entries a change. Never
      // through a symbolic link, never into a FIFO (whose open would wait for a reader forever),
      // never into a file another name also reaches (a hard link) or another user owns.
      if (this.fd === undefined) {
        fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 })
        this.fd = openPrivate(this.file, 'append')
      }
      // One write of one line with O_APPEND: lines of processes writing at once never mix, and
      // the line is the kernel's (a kill -9 of pay keeps it) before the request is sent.
      const line = `${JSON.stringify(entry)}\n`
      // A last line cut short (a full disk, a crash, another run's) would swallow this entry: it
      // starts a line of its own. Looked at before each entry: another process appends meanwhile.
      const text = this.endsMidLine(this.fd) ? `\n${line}` : line
      const written = fs.writeSync(this.fd, text)
      if (this.end !== undefined) this.end += written
    } catch (error) {
      this.close()
      this.failed = true
      const why =
        error instanceof UnsafeFileError
          ? unsafeReason(error)
          : ((error as NodeJS.ErrnoException).code ?? (error as Error).message)
      this.warn(
        `Could not write the journal ${this.file} (${why}); ` +
          'the changes of this run go unrecorded. PAY_JOURNAL_FILE moves it, PAY_JOURNAL=0 turns it off.',
      )
    }
  }

  /**
   * Whether the file open at `fd` ends with something other than a newline (a line cut short).
   * While it still ends where this run's last entry did, one read of the two bytes from there
   * tells: exactly one byte comes back, the file's last. Otherwise (another process appended, or
   * the file shrank) its size is asked (fstat) and its last byte read.
   */
  private endsMidLine(fd: number): boolean {
    const bytes = Buffer.alloc(2)
    if (this.end !== undefined && this.end > 0 && fs.readSync(fd, bytes, 0, 2, this.end - 1) === 1) {
      return bytes[0] !== 0x0a
    }
    const { size } = fs.fstatSync(fd)
    this.end = size
    if (size === 0) return false
    return fs.readSync(fd, bytes, 0, 1, size - 1) === 1 && bytes[0] !== 0x0a
  }
}

function unsafeReason(error: UnsafeFileError): string {
  switch (error.reason) {
    case 'symlink':
      return 'it is a symbolic link'
    case 'hard-link':
      return 'another name links to the same file'
    case 'not-yours':
      return 'it belongs to another user'
    default:
      return 'it is not a regular file'
  }
}

/** A journal read back: its entries, oldest first, and how many lines could not be read. */
export interface JournalRead {
  entries: JournalEntry[]
  /** Lines that are neither blank nor an entry: cut short by a crash or a full disk, or not pay's. */
  unreadable: number
}

/** The entries of a journal file, oldest first; lines that are not entries are left out. */
export function readJournal(file: string): JournalEntry[] {
  return loadJournal(file).entries
}

/** The journal at `file` line by line: every entry that can be read, and a count of the lines that cannot. */
export function loadJournal(file: string): JournalRead {
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
  return text === undefined ? { entries: [], unreadable: 0 } : journalLines(text)
}

/** Where an entry starts: JSON.stringify writes `at` first, and a quote inside a value is escaped. */
const ENTRY_START = '{"at":"'

/**
 * The entries of a journal's text. A line cut short (kill -9 mid-write, a full disk) is counted,
 * not read; an entry that an earlier pay glued onto such a line (it wrote the next entry straight
 * after it) is still found, where its own `{"at":"` begins.
 */
export function journalLines(text: string): JournalRead {
  const entries: JournalEntry[] = []
  let unreadable = 0
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const whole = entryOf(line)
    if (whole) {
      entries.push(whole)
      continue
    }
    const [before, ...pieces] = line.split(ENTRY_START)
    const glued = pieces.map((piece) => entryOf(ENTRY_START + piece))
    const found = glued.filter((entry) => entry !== undefined)
    entries.push(...found)
    if (found.length === 0) unreadable++
    else unreadable += glued.length - found.length + (before.trim() === '' ? 0 : 1)
  }
  return { entries, unreadable }
}

function entryOf(line: string): JournalEntry | undefined {
  try {
    const entry = JSON.parse(line) as JournalEntry
    return typeof entry === 'object' && entry !== null && typeof entry.change === 'string' ? entry : undefined
  } catch {
    return undefined
  }
}
