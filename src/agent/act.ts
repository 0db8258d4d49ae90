import { runBulk } from '../bulk/runner.js'
import { PayError } from '../errors.js'
import type { BulkRow } from '../render/bulk-rows.js'
import type { Endpoint } from '../shared/endpoints.js'
import type { Rec } from '../values.js'
import { checkAmounts, checkItems } from './caps.js'
import { errorAnswer, recordLine } from './results.js'
import { describeAny } from './runs.js'
import type { ToolCall, ToolSource } from './tool.js'
import { capitalised, fetchRecord, given, ID, idOf, type Made, plural, RECORD_OUT } from './tool-calls.js'

/**
 * The delete and cancel tools: by ids, and never on the first call. It answers the plan (each id
 * looked up: what it is, or not found) and a confirm string bound to exactly those arguments
 * (confirm.ts); the second call with the same ids and that string acts, once, through the same
 * bulk run as `links delete`, `subs cancel` and `subs delete` with --yes: one result per id.
 */

/** The most ids one delete or cancel takes (--max-items may allow fewer). */
const MAX_IDS = 1000
/** Records looked up at once for a plan. */
const LOOKUPS_AT_ONCE = 8

/** The lookups of a plan: each id with what it is, or that it was not found. */
async function planOf(
  source: ToolSource,
  ids: string[],
  call: ToolCall,
): Promise<{ items: Rec[]; records: Rec[]; lines: string[] }> {
  const items: Rec[] = new Array(ids.length)
  const lines: string[] = new Array(ids.length)
  const records: Rec[] = []
  const reading: ToolSource | undefined = source.runs?.get
    ? source
    : source.lookUp && { name: '', endpoint: source.lookUp, shape: 'get', verb: 'get' }
  let next = 0
  const worker = async () => {
    while (next < ids.length) {
      const index = next++
      const id = ids[index]
      if (!reading) {
        items[index] = { id }
        lines[index] = `  ${id}`
        continue
      }
      try {
        const record = await fetchRecord(reading, id, call)
        records.push(record)
        items[index] = { found: true, ...(source.runs?.planItem ?? planItemOfAny)(record), id }
        lines[index] = `  ${recordLine({ ...record, _id: id }, source.runs?.describe ?? describeAny)}`
      } catch (error) {
        if (!(error instanceof PayError) || error.kind !== 'not_found') throw error
        items[index] = { id, found: false, status: 'not_found' }
        lines[index] = `  ${recordLine({ _id: id })}  not found`
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, ids.length) }, worker))
  return { items, records, lines }
}

const planItemOfAny = (record: Rec): Rec =>
  given(record, ['_id', 'title', 'amount', 'currency', 'status', 'paid'])

export function actTool(source: ToolSource): Made {
  const { endpoint, runs, verb, preset, name } = source
  const noun = endpoint.noun
  return {
    properties: {
      ids: {
        type: 'array',
        items: ID,
        minItems: 1,
        maxItems: MAX_IDS,
        description: `The _id of each ${noun}.`,
      },
      confirm: {
        type: 'string',
        description: 'The confirm string of the plan the first call answered; leave it out to get the plan.',
      },
    },
    required: ['ids'],
    outputSchema: RECORD_OUT,
    async call(args, call) {
      const ids = [...new Set((args.ids as string[]).map((id) => idOf(id, 'ids')))]
      const what = `${verb} ${ids.length} ${ids.length === 1 ? noun : plural(noun)}`
      checkItems(call.caps, ids.length, what)
      const bound = { ids }
      if (args.confirm === undefined) {
        const plan = await planOf(source, ids, call)
        checkAmounts(
          call.caps,
          plan.records.map(
            runs?.amountOf ?? ((record) => ({ amount: record.amount, currency: record.currency })),
          ),
          `to ${what}`,
        )
        const { confirm, expiresAt } = call.confirmations.issue(name, bound)
        const { target } = await call.context.api()
        return {
          structured: {
            action: verb,
            tool: name,
            profile: target.profile,
            base_url: target.baseUrl,
            items: plan.items,
            confirm,
            expires_at: expiresAt,
            ...(verb === 'delete' ? { irreversible: true } : {}),
          },
          text: [
            `Plan: ${what} (profile ${target.profile}, ${target.baseUrl}). Nothing was changed.`,
            ...plan.lines,
            `To do it, call ${name} again with the same ids and confirm "${confirm}" (valid until ${expiresAt}, once).`,
          ].join('\n'),
        }
      }
      call.confirmations.check(name, bound, String(args.confirm))
      call.confirmations.use(String(args.confirm))
      const act = runs?.act?.[verb]
      let rows: BulkRow[]
      let failure: PayError | undefined
      if (act) {
        const outcome = await act(ids, call.agreed)
        rows = outcome.rows as BulkRow[]
        failure = outcome.failure
      } else rows = await actByDeclaration(endpoint, preset?.body, ids, call)
      const done = rows.filter((row) => row.ok).length
      const summary = `${capitalised(verb)}: ${done} of ${rows.length} done.`
      failure ??=
        done < rows.length && !act
          ? new PayError(`${rows.length - done} of ${rows.length} were not done.`, { kind: 'partial' })
          : undefined
      return {
        ...(failure ? { isError: true } : {}),
        structured: {
          action: verb,
          results: rows,
          done,
          of: rows.length,
          ...(failure ? { error: errorAnswer(failure).structured.error } : {}),
        },
        text: [
          summary,
          ...rows.map((row) => `  ${row.id}  ${row.status}${row.error ? `: ${row.error}` : ''}`),
        ].join('\n'),
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
