import {
  authOf,
  ENDPOINT_LIST,
  ENDPOINT_NAMES,
  ENDPOINTS,
  type Endpoint,
  type EndpointName,
  type Preset,
} from '../shared/endpoints.js'
import { ACCOUNT_TOOL_ENDPOINTS } from './account/tools.js'
import { actTool } from './act.js'
import { RUNS } from './runs.js'
import { SANDBOX_TOOL_ENDPOINTS } from './sandbox-tools.js'
import { objectSchema } from './schema.js'
import type { Annotations, PersonStep, Shape, Tool, ToolSource } from './tool.js'
import { createTool, getTool, listTool, updateTool } from './tool-calls.js'

/**
 * `pay mcp`'s tools, made from the endpoint table (src/shared/endpoints.ts): one per endpoint of
 * the service and per preset (Update Subscription's cancel), named by its resource and verb
 * (`links_create`, `subs_cancel`), its arguments the API's fields with their JSON Schema, its
 * annotations from what the endpoint does. A new endpoint gets its tool without a line here: it
 * is served by the plain functions of its resource (runs.ts) where they have its verb, and by its
 * declaration alone otherwise.
 */

/** The tools' names of the service's resources, as the commands' topics call them. */
const RESOURCE_NAMES: Readonly<Record<string, string>> = {
  'payment link': 'links',
  subscription: 'subs',
  token: 'token',
}

/** `payment link` and `create` → `links_create`; a resource of no name here by its plural. */
export function toolName(noun: string, verb: string): string {
  const resource = RESOURCE_NAMES[noun] ?? `${noun}s`.replace(/\s+/g, '_')
  return `${resource}_${verb}`
}

const plural = (noun: string) => `${noun}s`

/** What a tool does, from its endpoint's method, path and list flag (a preset acts on ids, as a delete does). */
export function shapeOf(endpoint: Endpoint, preset?: Preset): Shape {
  if (preset || endpoint.method === 'DELETE') return 'act'
  if (endpoint.answer === 'list') return 'list'
  if (endpoint.method === 'GET') return 'get'
  return endpoint.method === 'POST' && !endpoint.path.includes('{id}') ? 'create' : 'update'
}

function annotations(source: ToolSource): Annotations {
  const { endpoint, shape, name } = source
  const changes = endpoint.changesState
  const title = titleOf(source)
  return {
    title: title || name,
    readOnlyHint: !changes,
    // A create only adds; an update overwrites, a delete or a cancel cannot be taken back.
    destructiveHint: changes && shape !== 'create',
    // The same PUT or DELETE twice ends the same; a POST (a create without its key) may make two.
    idempotentHint: !changes || (endpoint.method !== 'POST' && (shape === 'update' || shape === 'act')),
    openWorldHint: !endpoint.sandbox,
  }
}

function titleOf({ shape, verb, endpoint }: ToolSource): string {
  const noun = endpoint.noun
  switch (shape) {
    case 'list':
      return `List ${plural(noun)}`
    case 'get':
      return `Get a ${noun}`
    case 'create':
      return `Create a ${noun}`
    case 'update':
      return `${capitalise(verb)} a ${noun}`
    case 'act':
      return `${capitalise(verb)} ${plural(noun)}`
  }
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** The endpoint in words an assistant reads: what it does, and how its request goes (`step`: how a delete or cancel reaches the person). */
function descriptionOf(source: ToolSource, step: PersonStep = 'confirm'): string {
  const { endpoint, shape, verb, preset } = source
  const request = `${endpoint.method} ${endpoint.path}${preset ? ` with ${JSON.stringify(preset.body)}` : ''}`
  const writes = endpoint.changesState ? ' Needs pay mcp --allow-writes.' : ''
  const noun = endpoint.noun
  switch (shape) {
    case 'list':
      return (
        `List ${plural(noun)} (${request}), newest first as the service orders them, \`limit\` at a time (default 50). ` +
        'Every page of the service is read, so the filters search them all. The answer is {items, next_cursor}: ' +
        'pass next_cursor back as cursor (with the same filters) for the next page; the last page has none.'
      )
    case 'get':
      return `One ${noun} by its _id (${request}); the answer is the record as the service holds it.`
    case 'create':
      return (
        `Create a ${noun} (${request}); the answer is the new record.${writes} An idempotency_key makes a retry ` +
        'safe: the same key sends the very same request, and the service makes one record (a new key is made otherwise).'
      )
    case 'update': {
      const presets = (endpoint.presets ?? []).map(
        (preset) =>
          `${Object.keys(preset.body).join(', ')}: ${toolName(endpoint.noun, preset.verb)}, with its plan`,
      )
      const elsewhere = presets.length > 0 ? ` (${presets.join('; ')})` : ''
      return `${capitalise(verb)} a ${noun} (${request}): only the fields given change${elsewhere}; the answer is the record after.${writes}`
    }
    case 'act': {
      const head = `${capitalise(verb)} ${plural(noun)} by _id (${request}, one request per id).${writes}`
      const results = `The answer is one result per id: {id, ok, status, error}.${verb === 'delete' ? ' A delete cannot be undone.' : ''}`
      const again =
        'Right before acting, pay reads the records again: if any changed (paid, status, amount, currency, ' +
        'updated_at) or is gone, nothing is done, and the answer is a tool error with the new plan and what changed.'
      if (step === 'refused')
        return `${head} Refused on this client: pay mcp was started with --require-person, and this client cannot ask the person (it offers no MCP elicitation).`
      if (step === 'elicitation')
        return (
          `${head} pay asks the person itself, through your client (MCP elicitation): it shows them the plan (each id ` +
          'with what it is, and the totals by currency) and acts only if they accept. There is no confirm string. ' +
          `${again} ${results}`
        )
      return (
        `${head} The first call changes nothing: it answers the plan (each id with what it is: title, amount, ` +
        'status; the totals by currency) and a confirm string. Only a second call with the same ids and that ' +
        'confirm acts, once, within 10 minutes. This client cannot ask the person through pay (it offers no MCP ' +
        "elicitation), so you, the model, see the confirm string: the person's step is your client's approval " +
        'of that second call. Show the person the plan first, and never confirm a plan they did not agree to. ' +
        `${again} ${results}`
      )
    }
  }
}

/**
 * Whether an endpoint of the service is a tool made here: one an API key authorises. An endpoint
 * whose body or answer holds a credential (`secret`: the sign-in's password and token) is never a
 * tool; those of the account's access token are account/tools.ts's.
 */
export const madeHere = (endpoint: Endpoint) =>
  !endpoint.sandbox && endpoint.secret !== true && authOf(endpoint) === 'key'

/** The tools of the declared endpoints of the service (`endpoints`: the declarations, a test adds one). */
export function serviceTools(endpoints: readonly Endpoint[] = ENDPOINT_LIST): Tool[] {
  const sources: ToolSource[] = []
  for (const endpoint of endpoints) {
    if (!madeHere(endpoint)) continue
    const runs = RUNS[endpoint.noun]
    const lookUp = endpoints.find(
      (other) => other.method === 'GET' && other.path === endpoint.path && other.answer === 'record',
    )
    sources.push({
      name: toolName(endpoint.noun, endpoint.verb),
      endpoint,
      shape: shapeOf(endpoint),
      verb: endpoint.verb,
      runs,
      lookUp,
    })
    for (const preset of endpoint.presets ?? []) {
      sources.push({
        name: toolName(endpoint.noun, preset.verb),
        endpoint,
        preset,
        shape: 'act',
        verb: preset.verb,
        runs,
        lookUp,
      })
    }
  }
  return sources.map(toolOf)
}

/** The tool of one source: its shape's arguments and call, named and described from the declaration. */
function toolOf(source: ToolSource): Tool {
  const made = { list: listTool, get: getTool, create: createTool, update: updateTool, act: actTool }[
    source.shape
  ](source)
  const forStep = made.forStep
  return {
    name: source.name,
    title: titleOf(source),
    description: descriptionOf(source),
    inputSchema: objectSchema(made.properties, made.required),
    ...(made.outputSchema ? { outputSchema: made.outputSchema } : {}),
    annotations: annotations(source),
    writes: source.endpoint.changesState,
    ...(forStep
      ? {
          forStep: (step: PersonStep) => ({
            description: descriptionOf(source, step),
            inputSchema: objectSchema(forStep(step), made.required),
          }),
        }
      : {}),
    call: made.call,
  }
}

/**
 * Every endpoint a tool of `pay mcp` may send: the service's made here, and those of the sandbox's
 * and the account's tools (never a `secret` one).
 */
export function toolEndpoints(): EndpointName[] {
  const others = new Set<string>([
    ...Object.values(SANDBOX_TOOL_ENDPOINTS).flat(),
    ...Object.values(ACCOUNT_TOOL_ENDPOINTS).flat(),
  ])
  return ENDPOINT_NAMES.filter((name) => {
    const endpoint: Endpoint = ENDPOINTS[name]
    return endpoint.secret !== true && (madeHere(endpoint) || others.has(name))
  })
}
