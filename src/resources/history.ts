import type { JournalEntry } from '../config/journal.js'
import { usageError } from '../errors.js'
import type { View } from '../render/views.js'
import type { Rec } from '../values.js'

/** One change of the journal, its intent and outcome together, as `pay history` shows it. */
export const HISTORY_VIEW: View = {
  noun: 'change',
  plural: 'changes',
  listColumns: ['at', 'method', 'resource', 'id', 'outcome', 'profile', 'user'],
  recordFields: [
    'at',
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
  ],
  idField: 'change',
  dropOrder: ['user', 'profile'],
  lastResort: ['resource'],
}

/** What came of a change: `done 200`, `failed validation 422`, or `unknown` (no outcome written). */
function outcomeOf(end: JournalEntry | undefined): string {
  if (!end) return 'unknown'
  if (end.error) return ['failed', end.error, end.status].filter((part) => part !== undefined).join(' ')
  return `done ${end.status ?? ''}`.trim()
}

/** The journal's changes, newest first: each intent with its outcome, when one was written. */
export function changesFrom(entries: JournalEntry[]): Rec[] {
  const outcomes = new Map<string, JournalEntry>()
  for (const entry of entries) if (entry.phase === 'outcome') outcomes.set(entry.change, entry)
  return entries
    .filter((entry) => entry.phase === 'intent')
    .map((intent) => {
      const end = outcomes.get(intent.change)
      const { phase: _phase, ...fields } = intent
      return {
        ...fields,
        id: end?.id ?? intent.id,
        outcome: outcomeOf(end),
        ...(end?.status !== undefined ? { status: end.status } : {}),
        ...(end?.error ? { error: end.error } : {}),
        ...(end ? { finished_at: end.at } : {}),
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
  const at = /^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN
  if (Number.isNaN(at)) {
    throw usageError(
      `--since: "${text}" is neither a date nor a span.`,
      'Give 2026-11-01, 2026-11-01T09:00:00Z, 30m, 24h or 7d.',
    )
  }
  return at
}
