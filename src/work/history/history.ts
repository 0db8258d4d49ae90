import { normalizeId } from '../../bulk/id-text.js'
import { type JournalEntry, loadJournal } from '../../config/journal.js'
import { usageError } from '../../errors.js'
import type { ListOutcome } from '../../render/output.js'
import type { View } from '../../render/views.js'
import type { RunContext } from '../../runtime/context.js'
import { endpointAt } from '../../shared/endpoints.js'
import type { Rec } from '../../values.js'

/** One change of the journal, its intent and outcome together, as `pay history` shows it. */
export const HISTORY_VIEW: View = {
  noun: 'change',
  plural: 'changes',
  listColumns: ['at', 'kind', 'id', 'outcome', 'profile', 'user'],
  recordFields: [
    'at',
    'kind',
    'outcome',
    'method',
    'path',
    'resource',
    'id',
    'idempotency_key',
    'profile',
    'base_url',
    'command',
    'user',
    'terminal',
    'finished_at',
    'settled_by',
    'found_at',
    'via',
  ],
  idField: 'change',
  dropOrder: ['user', 'profile'],
  // To the minute in a table (UTC, as written), so that at 80 columns KIND and OUTCOME keep
  // their words beside a whole id; --json, TSV and --columns keep the time as written.
  tableCell: (change, column) =>
    column === 'at' && typeof change.at === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(change.at)
      ? change.at.slice(0, 16).replace('T', ' ')
      : undefined,
}

/**
 * The same, with `via` (`mcp`: a change an assistant made through `pay mcp`) when the changes
 * shown hold one: last, so that the columns scripts read stay where they were.
 */
const HISTORY_VIA_VIEW: View = { ...HISTORY_VIEW, listColumns: [...HISTORY_VIEW.listColumns, 'via'] }

/** The command `pay mcp` journals a tool's change under: `pay mcp links_delete`. */
const AGENT_CHANGE = /^pay mcp (\S+)$/

/** The resource as a short word, for the kind of a change no endpoint declares. */
const SHORT: Record<string, string> = { 'payment link': 'link', subscription: 'sub', token: 'token' }

/**
 * What kind of change it was, in two words that fit an 80-column table: the kind its endpoint
 * declares (`create link`, `cancel sub` for the update `subs cancel` sends, `delete link`). A
 * request no endpoint declares (`pay api`'s, a PATCH, another path) is said by its method and
 * resource, as every journal written before the declarations says it.
 */
export function kindOf(entry: Pick<JournalEntry, 'command' | 'method' | 'path' | 'resource'>): string {
  // A journal line is taken as it was written: any of its fields may be missing.
  const declared = entry.command !== 'pay api' && typeof entry.path === 'string'
  const endpoint = declared ? endpointAt(entry.method, entry.path) : undefined
  if (endpoint?.changesState && endpoint.noun === entry.resource) {
    // `pay mcp subs_cancel` made the change `pay subs cancel` makes.
    const tool = AGENT_CHANGE.exec(String(entry.command))?.[1]
    const command = tool ? tool.replace(/_/g, ' ') : String(entry.command).replace(/^pay /, '')
    return (
      endpoint.presets?.find((preset) => command.split(' ').at(-1) === preset.verb)?.kind ?? endpoint.kind
    )
  }
  const noun = SHORT[entry.resource] ?? entry.resource
  if (entry.command === 'pay subs cancel') return `cancel ${noun}`
  const verb = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' }[entry.method]
  if (verb && entry.command !== 'pay api') return `${verb} ${noun}`
  return `${entry.method} ${noun}`.trim()
}

/** What came of a change: `done 200`, `failed validation 422`, or `unknown` (no outcome written). */
function outcomeOf(end: JournalEntry | undefined): string {
  if (!end) return 'unknown'
  if (end.error) return ['failed', end.error, end.status].filter((part) => part !== undefined).join(' ')
  return `done ${end.status ?? ''}`.trim()
}

/** A change whose outcome left it open: no outcome written (a kill), or the service did not answer. */
const open = (end: JournalEntry | undefined) => !end || end.error === 'unavailable'

/** A sandbox that ran inside a command has a port of its own each time: its base URL says so. */
const IN_PROCESS = / \(sandbox, in-process\)$/

/** The same service: the same profile and base URL (any port, for a sandbox that ran inside a command). */
const sameService = (a: JournalEntry, b: JournalEntry) =>
  a.profile === b.profile &&
  (a.base_url === b.base_url || (IN_PROCESS.test(a.base_url) && IN_PROCESS.test(b.base_url)))

/**
 * What a later run found of the record of each open change (no outcome, or the service did not
 * answer): the first `found` entry written after it, of the same kind, path and service.
 */
function foundAfter(entries: JournalEntry[]): Map<string, JournalEntry> {
  const found = new Map<string, JournalEntry>()
  /** The intents written so far that nothing has found yet, by method and path. */
  const waiting = new Map<string, JournalEntry[]>()
  for (const entry of entries) {
    const key = `${entry.method} ${entry.path}`
    if (entry.phase === 'intent') waiting.set(key, [...(waiting.get(key) ?? []), entry])
    if (entry.phase !== 'found') continue
    const settles = (intent: JournalEntry) => kindOf(intent) === kindOf(entry) && sameService(intent, entry)
    for (const intent of waiting.get(key) ?? []) if (settles(intent)) found.set(intent.change, entry)
    waiting.set(
      key,
      (waiting.get(key) ?? []).filter((intent) => !settles(intent)),
    )
  }
  return found
}

/**
 * The journal's changes, newest first: each intent with its outcome, when one was written. A
 * create left unknown (or failed to reach the service) that a later request with the same
 * Idempotency-Key completed (`--resume --retry-unknown`, or `pay api -H 'Idempotency-Key: …'`)
 * is shown `settled`, with the id the retry returned and the change that settled it. A change
 * left unknown whose record a later run found in the state it was to make (a resume reading a
 * subscription cancelled already) is shown `found cancelled`, with the entry that found it.
 */
export function changesFrom(entries: JournalEntry[]): Rec[] {
  const outcomes = new Map<string, JournalEntry>()
  for (const entry of entries) if (entry.phase === 'outcome') outcomes.set(entry.change, entry)
  const intents = entries.filter((entry) => entry.phase === 'intent')
  const laterFound = foundAfter(entries)
  /** The last change done with each key and base URL. */
  const doneWithKey = new Map<string, JournalEntry>()
  for (const intent of intents) {
    const end = outcomes.get(intent.change)
    if (intent.idempotency_key && end && !end.error)
      doneWithKey.set(`${intent.base_url} ${intent.idempotency_key}`, end)
  }
  return intents
    .map((intent) => {
      const end = outcomes.get(intent.change)
      const settled =
        intent.idempotency_key && open(end)
          ? doneWithKey.get(`${intent.base_url} ${intent.idempotency_key}`)
          : undefined
      const found = !settled && open(end) ? laterFound.get(intent.change) : undefined
      const { phase: _phase, ...fields } = intent
      return {
        ...fields,
        kind: kindOf(intent),
        id: end?.id ?? settled?.id ?? intent.id,
        outcome: settled
          ? `settled ${settled.status ?? ''}`.trim()
          : found
            ? `found ${found.found}`
            : outcomeOf(end),
        ...(end?.status !== undefined ? { status: end.status } : {}),
        ...(end?.error ? { error: end.error } : {}),
        ...(end ? { finished_at: end.at } : {}),
        ...(settled ? { settled_by: settled.change } : {}),
        ...(found ? { settled_by: found.change, found_at: found.at } : {}),
        ...(AGENT_CHANGE.test(String(intent.command)) ? { via: 'mcp' } : {}),
      }
    })
    .reverse()
}

/**
 * --since as a moment: a date or date-time (`2026-11-01`, `2026-11-01T09:00:00Z`), or a span back
 * from now (`30m`, `24h`, `7d`).
 */
export function sinceMoment(text: string, now = Date.now()): number {
  const span = /^(\d+)([mhd])$/.exec(text.trim())
  if (span)
    return now - Number(span[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as 'm' | 'h' | 'd']
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(text.trim())
  const at = date ? Date.parse(text.trim()) : Number.NaN
  // Date.parse takes 2026-02-30 as 2 March: a day the month does not have is refused.
  const real = date && !Number.isNaN(at) && isCalendarDay(Number(date[1]), Number(date[2]), Number(date[3]))
  if (!real) {
    throw usageError(
      `--since: "${text}" is neither a date nor a span.`,
      'Give 2026-11-01, 2026-11-01T09:00:00Z, 30m, 24h or 7d.',
    )
  }
  return at
}

/** What `pay history` says of lines of the journal it could not read; the entries around them are shown. */
export function unreadableText(file: string, count: number): string {
  const lines = count === 1 ? '1 line' : `${count} lines`
  return `${lines} of the journal ${file} could not be read (cut short by a crash or a full disk) and ${count === 1 ? 'was' : 'were'} skipped.`
}

function isCalendarDay(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/**
 * `pay history`: the journal's changes, newest first, from `since` on (--since: a date or a span
 * back from now), of one record (`id`), as many as the list scope says.
 */
export async function history(
  options: { since?: string; id?: string },
  context: RunContext,
): Promise<{ changes: Rec[]; view: View; outcome: () => ListOutcome }> {
  const file = context.journalFile
  if (file === undefined) throw usageError('The journal is off (PAY_JOURNAL=0).')
  const since = options.since === undefined ? undefined : sinceMoment(options.since, context.now())
  const id = options.id === undefined ? undefined : normalizeId(options.id)
  const { entries, unreadable } = loadJournal(file)
  // Said in every output mode: an entry may be missing, and the rest is still shown.
  if (unreadable > 0) context.out.warn(unreadableText(file, unreadable))
  const changes = changesFrom(entries).filter(
    (change) =>
      (since === undefined || Date.parse(String(change.at)) >= since) &&
      (id === undefined || change.id === id),
  )
  const { limit, all, limitGiven, takesAll } = context.listScope
  const picked = limit === undefined ? changes : changes.slice(0, limit)
  const outcome = () => ({
    shown: picked.length,
    more: picked.length < changes.length ? ('limit' as const) : undefined,
    pages: 1,
    scanned: changes.length,
    filtered: false,
    asked: { takesAll, all, limitGiven },
  })
  return {
    changes: picked,
    view: picked.some((change) => change.via) ? HISTORY_VIA_VIEW : HISTORY_VIEW,
    outcome,
  }
}
