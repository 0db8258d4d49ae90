import { runBulk } from '../bulk/runner.js'
import { PayError } from '../errors.js'
import type { BulkRow } from '../render/bulk-rows.js'
import type { Target } from '../runtime/context.js'
import type { Endpoint } from '../shared/endpoints.js'
import type { Rec } from '../values.js'
import { type Amount, totalsByCurrency, withCurrency } from './caps.js'
import { canonical, PlanRefused } from './confirm.js'
import { type Answer, errorAnswer, recordLine, withData } from './results.js'
import { amountOfAny, summaryOfAny, watched } from './runs.js'
import type { JsonSchema } from './schema.js'
import type { PersonStep, ToolCall, ToolSource } from './tool.js'
import { capitalised, fetchRecord, ID, idOf, type Made, plural, RECORD_OUT, readerOf } from './tool-calls.js'
import { idText, quoted } from './untrusted.js'

/**
 * The delete and cancel tools: by ids, and only once a person agreed to the plan. The plan is
 * each id looked up (what it is, or not found) and the totals by currency. A client that offers
 * MCP elicitation shows it to the person and asks (a required boolean `confirm`): the call acts
 * on "accept" with `confirm: true` alone, and the model never sees anything it could confirm
 * with. Any other client gets the plan and a confirm string (confirm.ts), which a second call
 * with the same ids gives back: the model sees that string, so the person's step is the client's
 * own approval of that call (pay mcp --require-person refuses such clients). Either way, the
 * records are read again before acting: when any changed (paid, status, amount, currency,
 * updated_at) or is gone, nothing is done, and the answer is the new plan and what changed. The
 * caps count what was read again, per call and per session (caps.ts). The act itself is the
 * same bulk run as `links delete`, `subs cancel` and `subs delete` with --yes: one result per id.
 */

/** The most ids one delete or cancel takes (--max-items may allow fewer). */
const MAX_IDS = 1000
/** Records looked up at once for a plan. */
const LOOKUPS_AT_ONCE = 8

/** A plan: each id's item (what the person sees), its line, the amounts, and each record as the confirm compares it. */
interface PlanView {
  items: Rec[]
  lines: string[]
  amounts: Amount[]
  records: Record<string, Rec>
}

/** Each id looked up, as the plan shows it and the confirm compares it. */
async function planOf(source: ToolSource, ids: string[], call: ToolCall): Promise<PlanView> {
  const items: Rec[] = new Array(ids.length)
  const lines: string[] = new Array(ids.length)
  const amounts: Amount[] = []
  const records: Record<string, Rec> = {}
  const reading = readerOf(source)
  const summary = source.runs?.summary ?? summaryOfAny
  const amountOf = source.runs?.amountOf ?? amountOfAny
  let next = 0
  const worker = async () => {
    while (next < ids.length) {
      const index = next++
      const id = ids[index]
      if (!reading) {
        items[index] = { id }
        lines[index] = `  ${idText(id)}`
        continue
      }
      try {
        const record = await fetchRecord(reading, id, call)
        const item = { ...summary(record), id }
        items[index] = { found: true, ...item }
        lines[index] = `  ${recordLine(item)}`
        amounts.push(amountOf(record))
        records[id] = { found: true, ...watched(record, amountOf) }
      } catch (error) {
        if (!(error instanceof PayError) || error.kind !== 'not_found') throw error
        items[index] = { id, found: false, status: 'not_found' }
        lines[index] = `  ${idText(id)}  not found`
        records[id] = { found: false }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, ids.length) }, worker))
  return { items, lines, amounts, records }
}

/** Each currency's total of a plan, as data and as pay writes it (`51.00 EUR`). */
function totalsOf(plan: PlanView): { data: Rec[]; text: string } {
  const totals = [...totalsByCurrency(plan.amounts)]
  return {
    data: totals.map(([currency, { total }]) => ({ currency: currency || null, amount: total })),
    text:
      totals.length === 0
        ? 'Total: no amounts.'
        : `Total: ${totals.map(([currency, { total }]) => withCurrency(total, currency)).join(', ')}.`,
  }
}

/** What changed in a record between the plan and now. */
interface Change {
  id: string
  field: string
  was: unknown
  now: unknown
}

/** What changed between the records a plan was made of and the same records read again. */
function changesBetween(before: Record<string, Rec>, after: Record<string, Rec>): Change[] {
  const changes: Change[] = []
  for (const [id, was] of Object.entries(before)) {
    const now = after[id] ?? { found: false }
    if (was.found !== now.found) {
      changes.push({ id, field: 'found', was: was.found, now: now.found })
      continue
    }
    for (const field of new Set([...Object.keys(was), ...Object.keys(now)]))
      if (canonical(was[field]) !== canonical(now[field]))
        changes.push({ id, field, was: was[field] ?? null, now: now[field] ?? null })
  }
  return changes
}

const changeLine = ({ id, field, was, now }: Change) =>
  field === 'found'
    ? `  ${idText(id)}: ${now ? 'found now, not found at the plan' : 'gone: not found now'}`
    : `  ${idText(id)}: ${field} was ${quoted(was)}, is now ${quoted(now)}`

export function actTool(source: ToolSource): Made {
  const { endpoint, verb, name } = source
  const noun = endpoint.noun
  const ids: JsonSchema = {
    type: 'array',
    items: ID,
    minItems: 1,
    maxItems: MAX_IDS,
    description: `The _id of each ${noun}.`,
  }
  const confirmProperty: JsonSchema = {
    type: 'string',
    description:
      'The confirm string of the plan the first call answered; leave it out to get the plan. Give it only once the ' +
      'person agreed to that plan.',
  }
  const irreversible = verb === 'delete' ? ' A delete cannot be undone.' : ''
  const what = (count: number) => `${verb} ${count} ${count === 1 ? noun : plural(noun)}`

  /** The plan and its confirm string, for a client that cannot ask the person. */
  const planned = (plan: PlanView, target: Target, count: number, call: ToolCall) => {
    const issued = call.plans.issue({
      tool: name,
      ids: plan.items.map((item) => String(item.id)),
      profile: target.profile,
      base_url: target.baseUrl,
      records: plan.records,
    })
    const totals = totalsOf(plan)
    return {
      structured: {
        action: verb,
        tool: name,
        profile: target.profile,
        base_url: target.baseUrl,
        items: plan.items,
        totals: totals.data,
        confirm: issued.confirm,
        expires_at: issued.expiresAt,
        ...(verb === 'delete' ? { irreversible: true } : {}),
      },
      lines: plan.lines,
      totals: totals.text,
      how:
        `To do it once the person agreed to this plan, call ${name} again with the same ids and confirm ` +
        `"${issued.confirm}" (valid until ${issued.expiresAt}, once). You can see this confirm string: ` +
        "the person's step is your client's approval of that call.",
      first: `Plan: ${what(count)} (profile ${target.profile}, ${target.baseUrl}). Nothing was changed.`,
    }
  }

  /** Nothing done: the records changed since the plan. The new plan, what changed, and how to go on. */
  const stale = (
    changes: Change[],
    plan: PlanView,
    target: Target,
    count: number,
    call: ToolCall,
    asked: boolean,
  ): Answer => {
    const records = new Set(changes.map((change) => change.id)).size
    const message = `Nothing was done: ${records} of the ${count} ${count === 1 ? noun : plural(noun)} changed since the plan.`
    const error = errorAnswer(new PayError(message, { kind: 'usage' })).structured.error as Rec
    const totals = totalsOf(plan)
    let next: Rec
    let how: string
    let capped: string | undefined
    try {
      call.session.check(call.caps, count, plan.amounts, what(count))
    } catch (refused) {
      capped = (refused as Error).message
    }
    if (capped) {
      next = { items: plan.items, totals: totals.data }
      how = `The new plan is refused too: ${capped}`
    } else if (asked) {
      next = { items: plan.items, totals: totals.data }
      how = `To ask the person with the new plan, call ${name} again with the same ids.`
    } else {
      const again = planned(plan, target, count, call)
      next = {
        items: plan.items,
        totals: totals.data,
        confirm: again.structured.confirm,
        expires_at: again.structured.expires_at,
      }
      how = again.how
    }
    return {
      isError: true,
      structured: {
        error: { ...error, reason: 'changed' },
        changes: changes.map(({ id, field, was, now }) => ({ id, field, was, now })),
        plan: next,
      },
      text: withData(
        `Error (usage, exit 2): ${message}`,
        [...changes.map(changeLine), 'The new plan:', ...plan.lines],
        [totals.text, how],
      ),
    }
  }

  /** The act, once agreed and checked: the bulk run, and one result per id. */
  const act = async (ids: string[], call: ToolCall): Promise<Answer> => {
    const run = source.runs?.act?.[verb]
    let rows: BulkRow[]
    let failure: PayError | undefined
    if (run) {
      const outcome = await run(ids, call.agreed)
      rows = outcome.rows as BulkRow[]
      failure = outcome.failure
    } else rows = await actByDeclaration(endpoint, source.preset?.body, ids, call)
    const done = rows.filter((row) => row.ok).length
    failure ??=
      done < rows.length && !run
        ? new PayError(`${rows.length - done} of ${rows.length} were not done.`, { kind: 'partial' })
        : undefined
    const errors = rows.some((row) => row.error)
    const lines = rows.map(
      (row) => `  ${idText(row.id)}  ${row.status}${row.error ? `: ${quoted(row.error)}` : ''}`,
    )
    return {
      ...(failure ? { isError: true } : {}),
      structured: {
        action: verb,
        results: rows,
        done,
        of: rows.length,
        ...(failure ? { error: errorAnswer(failure).structured.error } : {}),
      },
      text: errors
        ? withData(`${capitalised(verb)}: ${done} of ${rows.length} done.`, lines)
        : [`${capitalised(verb)}: ${done} of ${rows.length} done.`, ...lines].join('\n'),
    }
  }

  /**
   * Reads the records again: acts when none changed and the caps allow it, else says why not.
   * `confirm`: the plan's confirm string, used up as acted on or as replaced by a new plan.
   */
  const recheckAndAct = async (
    before: Record<string, Rec>,
    ids: string[],
    target: Target,
    call: ToolCall,
    confirm?: string,
  ): Promise<Answer> => {
    const now = await planOf(source, ids, call)
    const changes = changesBetween(before, now.records)
    if (changes.length > 0) {
      if (confirm !== undefined) call.plans.use(confirm, 'changed')
      return stale(changes, now, target, ids.length, call, confirm === undefined)
    }
    // No await from here to the act's start: the caps checked, the plan used up, the session counted.
    call.session.check(call.caps, ids.length, now.amounts, what(ids.length))
    if (confirm !== undefined) call.plans.use(confirm)
    call.session.take(call.caps, ids.length, now.amounts, what(ids.length))
    return act(ids, call)
  }

  return {
    properties: { ids, confirm: confirmProperty },
    required: ['ids'],
    outputSchema: RECORD_OUT,
    // A client that asks the person gets no confirm argument: there is nothing the model could confirm with.
    forStep: (step: PersonStep): Record<string, JsonSchema> =>
      step === 'elicitation' ? { ids } : { ids, confirm: confirmProperty },
    async call(args, call) {
      const given = [...new Set((args.ids as string[]).map((id) => idOf(id, 'ids')))]
      const count = given.length
      const { target } = await call.context.api()
      if (!call.person && call.requirePerson)
        throw new PayError(
          `${name} is refused: pay mcp was started with --require-person, and this client cannot ask the person ` +
            '(it offers no MCP elicitation). Nothing was sent.',
          {
            kind: 'usage',
            hint: 'Use a client that offers elicitation, or have a person run the command at a terminal, where pay asks first.',
          },
        )
      if (call.person) {
        if (args.confirm !== undefined)
          throw new PayError(
            `${name} takes no confirm string here: pay mcp asks the person through the client.`,
            {
              kind: 'usage',
              hint: 'Call it with the ids alone.',
            },
          )
        call.session.check(call.caps, count, [], what(count))
        const plan = await planOf(source, given, call)
        call.session.check(call.caps, count, plan.amounts, what(count))
        const totals = totalsOf(plan)
        const message = withData(
          `An assistant asks to ${what(count)} on profile "${target.profile}" (${target.baseUrl}).${irreversible}`,
          plan.lines,
          [totals.text],
        )
        const question = `${capitalised(what(count))}?`
        if ((await call.person.confirm(message, question)) !== 'yes')
          throw new PayError(`The person did not agree to ${what(count)}. Nothing was done.`, {
            kind: 'cancelled',
            hint: 'Ask the person what they want instead; do not call again unless they ask for it.',
          })
        return recheckAndAct(plan.records, given, target, call)
      }
      if (args.confirm === undefined) {
        call.session.check(call.caps, count, [], what(count))
        const plan = await planOf(source, given, call)
        call.session.check(call.caps, count, plan.amounts, what(count))
        const shown = planned(plan, target, count, call)
        return {
          structured: shown.structured,
          text: withData(shown.first, shown.lines, [shown.totals, shown.how]),
        }
      }
      const confirm = String(args.confirm)
      try {
        const kept = call.plans.open(confirm, name, given, target)
        // In the plan's own order, which the person saw.
        return await recheckAndAct(kept.records, kept.ids, target, call, confirm)
      } catch (error) {
        if (!(error instanceof PlanRefused)) throw error
        const answer = errorAnswer(error)
        return {
          ...answer,
          structured: { error: { ...(answer.structured.error as Rec), reason: error.reason } },
        }
      }
    },
  }
}

/** A delete or a preset by its declaration alone: one request per id, with bounded concurrency. */
async function actByDeclaration(
  endpoint: Endpoint,
  body: Readonly<Record<string, string | boolean>> | undefined,
  ids: string[],
  call: ToolCall,
): Promise<BulkRow[]> {
  const { api } = await call.agreed.api()
  const run = await runBulk(
    ids,
    async (id) => {
      if (endpoint.method === 'DELETE') await api.send(endpoint, { id })
      else await api.send(endpoint, { id, body })
      return 'done'
    },
    { concurrency: 4 },
  )
  return run.results
}
