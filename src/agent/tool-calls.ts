import { idProblem, normalizeId } from '../bulk/id-text.js'
import { PayError } from '../errors.js'
import { type Endpoint, takesIdempotencyKey } from '../shared/endpoints.js'
import type { Rec } from '../values.js'
import { walkRecords } from '../work/common/list-walk.js'
import { type OptionSpecs, parseOptions } from '../work/common/options.js'
import { checkAmounts } from './caps.js'
import { type Answer, recordAnswer, recordLine, withData } from './results.js'
import { summaryOfAny } from './runs.js'
import { fieldSchema, type JsonSchema } from './schema.js'
import type { PersonStep, ToolCall, ToolSource } from './tool.js'

/**
 * What each shape of tool takes and does (tools.ts names and describes them): a list's page, a
 * record, a create, an update (a delete or cancel by ids, behind a plan: act.ts).
 * Each calls its resource's plain function (runs.ts) when it has one, else sends its endpoint's
 * declaration as it stands.
 */

export interface Made {
  properties: Record<string, JsonSchema>
  required: string[]
  outputSchema?: JsonSchema
  /** A delete or cancel: its arguments for how the person is reached (else `properties`). */
  forStep?(step: PersonStep): Record<string, JsonSchema>
  call(args: Record<string, unknown>, call: ToolCall): Promise<Answer>
}

const PAGE_SIZE = 50
const MAX_PAGE_SIZE = 100

export const ID: JsonSchema = {
  type: 'string',
  minLength: 1,
  description: "The record's _id (a payment_url, which carries ?id=, is taken too).",
}
export const RECORD_OUT: JsonSchema = { type: 'object' }

export const plural = (noun: string) => `${noun}s`

/** An id as the commands read it (trimmed, from a payment URL, hex in lower case), or a usage error. */
export function idOf(text: string, field: string): string {
  const id = normalizeId(text)
  const problem = idProblem(id) ?? (/^[A-Za-z0-9_-]{1,100}$/.test(id) && id !== '-' ? undefined : 'not an id')
  if (problem) {
    throw new PayError(`${JSON.stringify(text)} is not an id.`, {
      kind: 'usage',
      errors: {
        [field]: [
          `${JSON.stringify(text)} is ${problem === 'not an id' ? problem : `not an id: ${problem}`}.`,
        ],
      },
    })
  }
  return id
}

/** The body's fields of the declaration, described by the resource's flags where it has them. */
function bodyProperties(
  endpoint: Endpoint,
  describe: ((field: string) => string | undefined) | undefined,
  allOptional: boolean,
): { properties: Record<string, JsonSchema>; required: string[] } {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const field of [...(endpoint.body ?? []), ...(endpoint.query ?? [])]) {
    properties[field.name] = fieldSchema(field, describe?.(field.name))
    if (field.required && !allOptional) required.push(field.name)
  }
  return { properties, required }
}

export const given = (args: Record<string, unknown>, names: string[]) =>
  Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]))

/** A list's filters (its work's options) as the tool's arguments: `--created-after` is `created_after`. */
function filterProperties(options: OptionSpecs): Record<string, JsonSchema> {
  const properties: Record<string, JsonSchema> = {}
  for (const [name, option] of Object.entries(options)) {
    const opposite = option.kind === 'boolean' && option.allowNo ? ' false: the opposite.' : ''
    const description = `${option.description}${opposite}`.trim()
    properties[name.replace(/-/g, '_')] =
      option.kind === 'boolean'
        ? { type: 'boolean', description }
        : {
            type: 'string',
            description,
            ...(option.kind === 'text' && option.options ? { enum: [...option.options] } : {}),
          }
  }
  return properties
}

/** The filters given, each parsed as its option says (a duration, a boolean), under the option's name. */
function parseFilters(options: OptionSpecs, args: Record<string, unknown>): Record<string, unknown> {
  const byOption = Object.fromEntries(
    Object.keys(options).map((name) => [name, args[name.replace(/-/g, '_')]]),
  )
  try {
    return parseOptions(options, byOption)
  } catch (error) {
    const field =
      Object.keys(options).find((name) => (error as Error).message.startsWith(`--${name}`)) ?? 'filter'
    throw new PayError(`The ${field.replace(/-/g, '_')} filter cannot be read.`, {
      kind: 'usage',
      errors: { [field.replace(/-/g, '_')]: [(error as Error).message] },
    })
  }
}

export function listTool(source: ToolSource): Made {
  const { endpoint, runs, name } = source
  const list = runs?.list
  const filters =
    list && runs?.filters
      ? filterProperties(runs.filters)
      : bodyProperties(endpoint, undefined, true).properties
  const names = Object.keys(filters)
  return {
    properties: {
      ...filters,
      cursor: { type: 'string', description: 'next_cursor of the page before; none for the first page.' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: PAGE_SIZE,
        description: `Records in this page (default ${PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).`,
      },
    },
    required: [],
    outputSchema: {
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'object' } },
        next_cursor: { type: 'string', description: 'Absent on the last page.' },
        // A tool error's structured content, which clients check against this schema too.
        error: { type: 'object' },
      },
    },
    async call(args, call) {
      const chosen = given(args, names)
      const parsed = list && runs?.filters ? parseFilters(runs.filters, chosen) : chosen
      const start = async () => {
        if (list) return (await list(parsed, call.context)).batches
        const { api } = await call.context.api()
        return walkRecords(api.pages(endpoint), undefined, { all: true, limitGiven: false }).batches
      }
      const limit = typeof args.limit === 'number' ? args.limit : PAGE_SIZE
      const cursor = typeof args.cursor === 'string' ? args.cursor : undefined
      const page = await call.pager.page(name, chosen, cursor, limit, start)
      const count = `${page.items.length} ${page.items.length === 1 ? endpoint.noun : plural(endpoint.noun)}`
      const more = page.next_cursor ? 'more: pass next_cursor as cursor' : 'the last page'
      const summary = runs?.summary ?? summaryOfAny
      const lines = page.items.map((record) => `  ${recordLine({ ...summary(record), id: record._id })}`)
      return { structured: { ...page }, text: withData(`${count} (${more}).`, lines) }
    },
  }
}

/** What reads one record of the source's resource: its run function, or the declared GET of the same path. */
export const readerOf = (source: ToolSource): ToolSource | undefined =>
  source.runs?.get
    ? source
    : source.lookUp && { name: '', endpoint: source.lookUp, shape: 'get', verb: 'get' }

/** The record the tool of a `get` answers: its resource's run function, or the declaration's request. */
export async function fetchRecord(source: ToolSource, id: string, call: ToolCall): Promise<Rec> {
  const get = source.runs?.get
  if (get) return get(id, call.context)
  const { api } = await call.context.api()
  return api.send(source.endpoint, { id })
}

export function getTool(source: ToolSource): Made {
  const { endpoint } = source
  const hasId = endpoint.path.includes('{id}')
  const query = bodyProperties(endpoint, undefined, false)
  return {
    properties: { ...(hasId ? { id: ID } : {}), ...query.properties },
    required: [...(hasId ? ['id'] : []), ...query.required],
    outputSchema: RECORD_OUT,
    async call(args, call) {
      const id = hasId ? idOf(String(args.id), 'id') : undefined
      let record: Rec
      if (id !== undefined && source.runs?.get) record = await fetchRecord(source, id, call)
      else {
        const { api } = await call.context.api()
        const q = given(args, Object.keys(query.properties)) as Record<string, string | number | boolean>
        record = await api.send(endpoint, { id, query: q })
      }
      return recordAnswer(record, capitalised(endpoint.noun), summaryOf(source, record))
    },
  }
}

/** What a tool's text says of a record: its resource's summary (runs.ts), with its _id. */
const summaryOf = (source: ToolSource, record: Rec): Rec => ({
  ...(source.runs?.summary ?? summaryOfAny)(record),
  id: record._id,
})

export const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** An Idempotency-Key as `--idempotency-key` takes it. */
function keyOf(value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string' && /^[\x21-\x7e]{1,255}$/.test(value)) return value
  throw new PayError('The idempotency_key cannot be sent.', {
    kind: 'usage',
    errors: {
      idempotency_key: [
        'The idempotency_key must be 1 to 255 visible ASCII characters (no spaces), e.g. a UUID.',
      ],
    },
  })
}

export function createTool(source: ToolSource): Made {
  const { endpoint, runs } = source
  const create = runs?.create
  const body = bodyProperties(endpoint, create?.fields.describe.bind(create.fields), false)
  const key = takesIdempotencyKey(endpoint)
  return {
    properties: {
      ...body.properties,
      ...(key
        ? {
            idempotency_key: {
              type: 'string',
              description:
                'Sent as the Idempotency-Key: the same key again makes no second record (default: a new one). 1 to 255 visible ASCII characters.',
            },
          }
        : {}),
    },
    required: body.required,
    outputSchema: RECORD_OUT,
    async call(args, call) {
      const fields = given(args, Object.keys(body.properties)) as Record<string, string | boolean>
      const idempotencyKey = keyOf(args.idempotency_key)
      if ('amount' in fields)
        checkAmounts(call.caps, [{ amount: fields.amount, currency: fields.currency }], `a ${endpoint.noun}`)
      let record: Rec
      if (create) record = await create.run(fields, idempotencyKey, call.context)
      else {
        const { api } = await call.context.api()
        record = await api.send(endpoint, { body: fields, idempotencyKey })
      }
      return recordAnswer(record, `Created ${endpoint.noun}`, summaryOf(source, record))
    },
  }
}

export function updateTool(source: ToolSource): Made {
  const { endpoint, runs, verb } = source
  const update = verb === 'update' ? runs?.update : undefined
  const body = bodyProperties(endpoint, update?.fields.describe.bind(update.fields), update !== undefined)
  // What a preset sends (`status: cancel`) only its own tool sends, behind its plan (subs_cancel).
  for (const preset of endpoint.presets ?? [])
    for (const field of Object.keys(preset.body)) delete body.properties[field]
  const hasId = endpoint.path.includes('{id}')
  return {
    properties: { ...(hasId ? { id: ID } : {}), ...body.properties },
    required: [...(hasId ? ['id'] : []), ...body.required],
    outputSchema: RECORD_OUT,
    async call(args, call) {
      const id = hasId ? idOf(String(args.id), 'id') : undefined
      const changes = given(args, Object.keys(body.properties)) as Record<string, string | boolean>
      if ('amount' in changes && call.caps.maxAmount !== undefined) {
        // The cap is said in the record's currency: read it when the call changes the amount alone.
        const reader = readerOf(source)
        const currency =
          changes.currency ??
          (id !== undefined && reader ? (await fetchRecord(reader, id, call)).currency : undefined)
        checkAmounts(call.caps, [{ amount: changes.amount, currency }], `a ${endpoint.noun}`)
      }
      let record: Rec
      if (update && id !== undefined) {
        try {
          record = await update.run(id, changes, call.context)
        } catch (error) {
          throw needsAPerson(error, call)
        }
      } else {
        const { api } = await call.context.api()
        record = await api.send(endpoint, { id, body: changes })
      }
      return recordAnswer(
        record,
        `${capitalised(verb === 'update' ? 'updated' : verb)} ${endpoint.noun}`,
        summaryOf(source, record),
      )
    },
  }
}

/**
 * A change the commands make only once a person confirms it (a paid link's): pay mcp never
 * makes it, and says why in the words the command warned with.
 */
function needsAPerson(error: unknown, call: ToolCall): unknown {
  if (!(error instanceof PayError) || error.kind !== 'usage' || !/without confirmation/.test(error.message))
    return error
  const warning =
    call
      .said()
      .trim()
      .split('\n')
      .at(-1)
      ?.replace(/^Warning: /, '') ?? ''
  return new PayError(
    `${warning} pay mcp does not make a change that needs a person's confirmation.`.trim(),
    {
      kind: 'usage',
      hint: 'A person can make it at a terminal, where pay asks first. Nothing was sent.',
    },
  )
}
