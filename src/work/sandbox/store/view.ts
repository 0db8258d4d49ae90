import type { View } from '../../../render/views.js'
import { describeDuration } from '../../../shared/duration.js'
import type { Rec } from '../../../values.js'
import type { ClockMoved, ClockRead } from './clock.js'
import type { SandboxReset } from './reset.js'
import type { SnapshotDone } from './snapshots.js'

/** `pay sandbox clock`: `{now, offset_seconds}`, as `GET /_sandbox/clock` answers. */
export const CLOCK_VIEW: View = {
  noun: 'clock',
  plural: 'clocks',
  listColumns: ['now', 'offset_seconds'],
  recordFields: ['now', 'offset_seconds'],
  idField: 'now',
}

/** `pay sandbox clock advance|set`: `{now, charges_created}`. */
export const CLOCK_MOVE_VIEW: View = {
  noun: 'clock',
  plural: 'clocks',
  listColumns: ['now', 'charges_created'],
  recordFields: ['now', 'charges_created'],
  idField: 'now',
}

/** How far sandbox time is ahead of real time, in words: `30d 2h ahead of real time`. */
export function aheadText(offsetSeconds: unknown): string {
  const seconds = typeof offsetSeconds === 'number' && Number.isFinite(offsetSeconds) ? offsetSeconds : 0
  if (Math.abs(seconds) < 1) return 'real time'
  const span = describeDuration({ months: 0, ms: Math.abs(seconds) * 1000 })
  return `${span} ${seconds > 0 ? 'ahead of' : 'behind'} real time`
}

/** `12 charges created`, `1 charge created`, `no charge created`. */
export function chargesText(count: unknown): string {
  const n = typeof count === 'number' ? count : 0
  if (n === 0) return 'no charge created'
  return `${n.toLocaleString('en')} charge${n === 1 ? '' : 's'} created`
}

/** What `sandbox clock` says under the clock: `Sandbox time is 30d ahead of real time (PLACE).` */
export const clockText = ({ clock, place }: ClockRead) =>
  `Sandbox time is ${aheadText(clock.offset_seconds)} (${place}).`

/** What `sandbox clock advance|set` (and `pay mcp`'s tool) say of the clock moved. */
export const movedText = ({ moved, place }: ClockMoved) =>
  `Sandbox time is now ${String(moved.now)} (${place}): ${chargesText(moved.charges_created)}.`

/** `sandbox reset --json`: `{reset, dir, base_url, business_id}`, dir or base_url null as it was done. */
export const resetJson = (reset: SandboxReset) =>
  reset.server
    ? { reset: true, dir: null, base_url: reset.baseUrl, business_id: reset.businessId }
    : { reset: true, dir: reset.dir, base_url: null, business_id: null }

/** What `sandbox reset` says it emptied, and where. */
export const resetText = (reset: SandboxReset) =>
  reset.server
    ? `The records of business ${reset.businessId ?? '?'} in the sandbox at ${reset.baseUrl} are deleted ` +
      "(other businesses' are kept)."
    : `The local sandbox store in ${reset.dir} is empty (no sandbox is running at ${reset.baseUrl}).`

/** The warning when the local store reset was set aside first. */
export const keptAsText = (keptAs: string) =>
  `The sandbox store was corrupt or from a newer pay: it was kept as ${keptAs}.`

/** `pay sandbox snapshot …`: a snapshot as `{name, saved_at, bytes}`. */
export const SNAPSHOT_VIEW: View = {
  noun: 'snapshot',
  plural: 'snapshots',
  listColumns: ['name', 'saved_at', 'bytes'],
  recordFields: ['name', 'saved_at', 'bytes'],
  idField: 'name',
}

/** `snapshot save`. */
export const savedText = ({ snapshot, dir, replaced }: SnapshotDone & { replaced: boolean }) =>
  `Saved the sandbox database of ${dir} as snapshot "${snapshot.name}"${replaced ? ' (it replaced the one of that name)' : ''}.`

/** `snapshot restore`. */
export const restoredText = ({ snapshot, dir }: SnapshotDone) =>
  `Restored snapshot "${snapshot.name}" (saved ${snapshot.saved_at}) into the sandbox database of ${dir}.`

/** `snapshot delete`. */
export const deletedText = ({ snapshot, dir }: SnapshotDone) =>
  `Deleted snapshot "${snapshot.name}" of ${dir}.`

/** `sandbox seed` and `sandbox start --seed`: what was seeded, as rows (store/seed.ts, seededRows). */
export const SEEDED_VIEW: View = {
  noun: 'seeded record',
  plural: 'seeded records',
  listColumns: ['name', 'kind', 'id', 'result'],
  recordFields: ['name', 'kind', 'id', 'result'],
  idField: 'id',
}

/** `3 records seeded, 1 skipped (seeded before)`. */
export function seededText(records: Rec[]): string {
  const skipped = records.filter((record) => record.result !== 'created').length
  const made = records.length - skipped
  const text = `${made} ${made === 1 ? 'record' : 'records'} seeded`
  return skipped === 0 ? text : `${text}, ${skipped} skipped (seeded before)`
}
