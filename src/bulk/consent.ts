import { PayError } from '../errors.js'
import type { Output } from '../render/output.js'
import { wrapMessage } from '../render/table/table.js'
import type { View } from '../render/views.js'
import type { Consent, Target } from '../runtime/context.js'
import type { IO } from '../runtime/io.js'
import { type Rec, sanitizeText } from '../values.js'
import { checkIds } from './ids.js'
import { inspect, type LookUp, someIds } from './look-up.js'
import type { Skipped } from './runner.js'

export type { LookUp } from './look-up.js'

export interface Plan {
  /** "delete", "cancel" */
  action: string
  /** "deleted", "cancelled" */
  done: string
  /** "payment link" / "payment links" */
  noun: string
  plural: string
  ids: string[]
  target: Target
  /** Extra lines shown under the summary (e.g. what each subscription is). */
  details?: string[]
  irreversible?: boolean
  /** Left out of the plan, for --dry-run --json: ids found not to exist, entries that are no ids. */
  notFound?: string[]
  invalid?: string[]
  /** Left out as needing nothing, by their status (`already_cancelled`), for --dry-run --json. */
  alreadyDone?: { status: string; ids: string[] }
  /** What the look-ups came to (`looked up 300: …`, `total: …`), shown under the ids. */
  lookedUp?: string[]
  /** The money of what would change, by currency, for --dry-run --json. */
  totals?: { amount: string; currency: string }[]
}

/** What every bulk workflow is given by its command: where it sends, consent, the screen. */
export interface WorkflowContext {
  target: Target
  consent: Consent
  out: Output
  io: IO
  concurrency: number
}

const MAX_IDS_SHOWN = 20

/**
 * Shows what a destructive command will act on, then: --dry-run stops, --yes goes on, a
 * terminal asks, anything else refuses (exit 2) before a single request is sent.
 * Returns false when nothing is to be done (dry run).
 */
export async function confirmPlan(plan: Plan, consent: Consent, out: Output, io: IO): Promise<boolean> {
  const count = plan.ids.length
  const noun = count === 1 ? plan.noun : plan.plural
  // Ids may come from a file: shown in caret notation, like any text that reaches the terminal.
  // On a terminal, as many ids as fit on one line; in a log, the first 20.
  const fits = io.stderrIsTerminal ? idsFitting(plan.ids, io.width) : MAX_IDS_SHOWN
  const shown = plan.ids.slice(0, fits).map(sanitizeText).join(', ')
  const more = count > fits ? ` … and ${count - fits} more` : ''
  const lines = [
    `About to ${plan.action} ${count} ${noun}:`,
    `  profile:  ${plan.target.profile}`,
    `  base URL: ${plan.target.baseUrl}`,
    ...(plan.details ?? [`  ids:      ${shown}${more}`]),
    ...(plan.lookedUp ?? []),
  ]
  if (plan.irreversible) lines.push('This cannot be undone.')
  // On a terminal a long line wraps at spaces, its continuation under the text after its first
  // word (the id, the label), so that it cannot be read as an item of its own, and a record's
  // state (`[Active, unpaid]`) is never split; in a log, as it is.
  const text = lines.join('\n')
  out.stderr.write(`${io.stderrIsTerminal ? wrapMessage(text, io.width, [/\[[^\]\n]*\]$/gm]) : text}\n`)

  if (consent.dryRun) {
    dryRun(plan, out)
    return false
  }
  if (consent.yes) return true
  await askOrRefuse(
    `${capitalise(plan.action)} ${count} ${noun}?`,
    `Nothing was ${plan.done}.`,
    plan.action,
    io,
  )
  return true
}

/** The end of a --dry-run: the plan as JSON with --json; nothing sent, which is no failure. */
function dryRun(plan: Plan, out: Output): void {
  if (out.json) {
    out.data({
      dry_run: true,
      action: plan.action,
      profile: plan.target.profile,
      base_url: plan.target.baseUrl,
      ids: plan.ids,
      ...(plan.notFound ? { not_found: plan.notFound } : {}),
      ...(plan.invalid ? { invalid: plan.invalid } : {}),
      ...(plan.alreadyDone ? { [plan.alreadyDone.status]: plan.alreadyDone.ids } : {}),
      ...(plan.totals
        ? { totals: plan.totals.map(({ amount, currency }) => ({ amount: Number(amount), currency })) }
        : {}),
    })
  }
  out.stderr.write('Dry run: nothing was changed.\n')
}

/**
 * A change that needs a yes (a paid link, say): `warning` on stderr, then --yes goes on, a
 * terminal asks, anything else refuses (exit 2) before the request is sent.
 */
export async function confirmRisk(
  warning: string,
  question: string,
  action: string,
  consent: Pick<Consent, 'yes'>,
  out: Output,
  io: IO,
): Promise<void> {
  out.warn(warning)
  if (consent.yes) return
  await askOrRefuse(question, 'Nothing was changed.', action, io)
}

async function askOrRefuse(question: string, nothingDone: string, action: string, io: IO): Promise<void> {
  if (!io.canConfirm) {
    throw new PayError(`Refusing to ${action} without confirmation: there is no terminal to confirm on.`, {
      kind: 'usage',
      hint:
        action === 'change'
          ? 'Pass --yes to confirm. Nothing was sent.'
          : 'Pass --yes to confirm, or --dry-run to see the plan. Nothing was changed.',
    })
  }
  // Declining (or Ctrl-C at the question) is "cancelled", exit 130.
  if (!(await io.confirm(question)))
    throw new PayError('Cancelled.', { kind: 'cancelled', hint: nothingDone })
}

export interface Agreement {
  /** What to act on. */
  ids: string[]
  /** Left out before asking (not ids, not found), reported with the results. */
  skipped: Skipped[]
  /** The records read for the plan, by id. */
  records: Map<string, Rec>
}

/**
 * Everything before a bulk run: entries that are not ids are left out (and said so), the
 * records are looked up for the plan where a person will confirm (those that do not exist are
 * left out), then the plan is shown and agreed to. Undefined after a dry run; nothing to ask
 * when nothing is left to act on.
 */
export async function agree(
  ids: string[],
  what: { action: string; done: string; view: View; irreversible?: boolean },
  job: Omit<WorkflowContext, 'concurrency'> & { concurrency?: number },
  lookUp?: LookUp,
): Promise<Agreement | undefined> {
  const { out, io, consent } = job
  const checked = checkIds(ids)
  if (checked.skipped.length > 0) {
    const shown = checked.skipped.map((entry) => JSON.stringify(entry.result.id)).join(', ')
    out.warn(
      `Left out ${checked.skipped.length === 1 ? 'an entry that is not an id' : `${checked.skipped.length} entries that are not ids`}: ${shown}.`,
    )
  }
  const inspection = await inspect(checked.valid, lookUp, {
    ...what,
    plural: what.view.plural,
    consent,
    out,
    io,
    concurrency: job.concurrency,
  })
  if (inspection.missing.length > 0) {
    out.warn(`Not found, left out: ${someIds(inspection.missing.map((entry) => entry.result.id))}.`)
  }
  const settledIds = inspection.settled.map((entry) => entry.result.id)
  if (settledIds.length > 0) out.notice(`Already ${what.done}, nothing to do: ${someIds(settledIds)}.`)
  const skipped = [...checked.skipped, ...inspection.missing, ...inspection.settled]
  const plan: Plan = {
    action: what.action,
    done: what.done,
    noun: what.view.noun,
    plural: what.view.plural,
    ids: inspection.ids,
    target: job.target,
    details: inspection.details,
    irreversible: what.irreversible,
    notFound: inspection.missing.map((entry) => entry.result.id),
    invalid: checked.skipped.map((entry) => entry.result.id),
    alreadyDone: lookUp?.alreadyDone
      ? { status: inspection.settled[0]?.result.status ?? `already_${what.done}`, ids: settledIds }
      : undefined,
    lookedUp: inspection.lookedUp?.lines,
    totals: inspection.lookedUp?.totals,
  }
  if (inspection.ids.length === 0) {
    // Nothing left to act on: what the look-ups found is said all the same (`looked up 300: 0 to
    // cancel, 300 already cancelled, 0 not found`); a dry run says so and ends well; a real run
    // reports what was left out.
    for (const line of inspection.lookedUp?.lines ?? []) out.notice(`${capitalise(line.trim())}.`)
    if (consent.dryRun) {
      dryRun(plan, out)
      return undefined
    }
    return { ids: [], skipped, records: inspection.records }
  }
  if (!(await confirmPlan(plan, consent, out, io))) return undefined
  return { ids: inspection.ids, skipped, records: inspection.records }
}

/** How many ids fit on the plan's ids line in `width` columns, with room for "… and N more". */
function idsFitting(ids: string[], width: number): number {
  let used = '  ids:      '.length + ' … and 999999 more'.length
  let fit = 0
  for (const id of ids.slice(0, MAX_IDS_SHOWN)) {
    used += [...id].length + (fit === 0 ? 0 : 2)
    if (used > width && fit > 0) break
    fit += 1
  }
  return fit
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
