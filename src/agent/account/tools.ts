import { runBulk } from '../../bulk/runner.js'
import { PayError } from '../../errors.js'
import { ENDPOINTS, type EndpointName } from '../../shared/endpoints.js'
import { type Rec, sanitizeText } from '../../values.js'
import { listBusinesses } from '../../work/account/businesses.js'
import { accountSend } from '../../work/account/send.js'
import { verifiedText, verifyNotification } from '../../work/account/verify.js'
import { addWebhookEvent, listWebhookEvents, setWebhookEnabled } from '../../work/account/webhooks.js'
import { actTool } from '../act.js'
import { type Answer, recordAnswer, recordLine, withData } from '../results.js'
import { type JsonSchema, objectSchema } from '../schema.js'
import type { PersonStep, Tool, ToolCall } from '../tool.js'
import { ID } from '../tool-calls.js'

/**
 * `pay mcp`'s tools of the account's endpoints (the access token of `pay login --email`; the
 * sign-in itself is never a tool: it takes a password): the businesses, the webhook events of the
 * profile's integration, and the check of a notification. Named as the commands that do the same
 * (`pay webhooks add` is webhooks_add), each calling the commands' own work (src/work/account);
 * the writes need --allow-writes, and removing answers a plan and a confirm first, as deletes do.
 */

/** The endpoints each tool sends: what makes it a write, and what `pay mcp` declares it calls. */
export const ACCOUNT_TOOL_ENDPOINTS = {
  businesses_list: ['approvedBusinesses'],
  webhooks_list: ['listWebhookEvents'],
  webhooks_add: ['addWebhookEvent'],
  webhooks_enable: ['updateWebhookEvent'],
  webhooks_disable: ['updateWebhookEvent'],
  webhooks_remove: ['listWebhookEvents', 'removeWebhookEvent'],
  webhooks_verify: [],
} as const satisfies Record<string, readonly EndpointName[]>

type Name = keyof typeof ACCOUNT_TOOL_ENDPOINTS

interface Made {
  description: string
  properties: Record<string, JsonSchema>
  required: string[]
  call(args: Record<string, unknown>, call: ToolCall): Promise<Answer>
}

const listAnswer = (noun: string, records: Rec[], summary: (record: Rec) => Rec): Answer => ({
  structured: { items: records },
  text: withData(
    `${records.length} ${noun}${records.length === 1 ? '' : 's'}.`,
    records.map((record) => `  ${recordLine(summary(record))}`),
  ),
})

/** What a plan and a tool's text say of a webhook event (the service's text quoted, results.ts). */
const eventSummary = (event: Rec): Rec => ({
  id: event._id,
  name: event.name,
  url: event.url,
  enabled: event.enabled,
})

const businessSummary = (business: Rec): Rec => ({
  id: business.id,
  name: business.name,
  ...(business.chosen ? { chosen: true } : {}),
})

const SIGNED_IN =
  'Of the account the profile signed in to with `pay login --email` (its access token; when it has expired, a person ' +
  'signs in again).'

const enabling = (enabled: boolean): Made => ({
  description: `Turn a webhook event of the profile's integration ${enabled ? 'on' : 'off'} (PATCH {"enabled": ${enabled}}). ${SIGNED_IN} Needs --allow-writes.`,
  properties: { id: { ...ID, description: 'The webhook event _id (webhooks_list).' } },
  required: ['id'],
  async call(args, call) {
    const event = await setWebhookEnabled({ id: String(args.id), enabled }, call.context)
    return recordAnswer(event, enabled ? 'Enabled' : 'Disabled', eventSummary(event))
  },
})

const MADE: Record<Exclude<Name, 'webhooks_remove'>, Made> = {
  businesses_list: {
    description: `The approved businesses of the account, each with its integration (keys redacted); chosen marks the profile's. ${SIGNED_IN} The answer is {items}.`,
    properties: {},
    required: [],
    async call(_args, call) {
      const businesses = await listBusinesses(call.context)
      return listAnswer('business', businesses, businessSummary)
    },
  },
  webhooks_list: {
    description: `The webhook events of the profile's integration: where the service notifies payments (payment.created), enabled or not. ${SIGNED_IN} The answer is {items}.`,
    properties: {},
    required: [],
    async call(_args, call) {
      return listAnswer('webhook event', await listWebhookEvents(call.context), eventSummary)
    },
  },
  webhooks_add: {
    description: `Notify a URL of the business's payments: a payment.created webhook event, enabled. ${SIGNED_IN} Needs --allow-writes. The answer is the event.`,
    properties: { url: { type: 'string', minLength: 1, description: 'The http(s) URL to notify.' } },
    required: ['url'],
    async call(args, call) {
      const event = await addWebhookEvent({ url: String(args.url) }, call.context)
      return recordAnswer(event, 'Added', eventSummary(event))
    },
  },
  webhooks_enable: enabling(true),
  webhooks_disable: enabling(false),
  webhooks_verify: {
    description:
      "Check a notification an app received (its JSON body, as text) with the profile's signature key: the keys the " +
      'plugins require, exactly the documented keys in order, each value in its form, and the hash. Nothing is sent. ' +
      'The answer is {valid, profile, event, data}; a tool error says which check failed.',
    properties: { body: { type: 'string', minLength: 1, description: 'The notification body, JSON text.' } },
    required: ['body'],
    async call(args, call) {
      const verified = await verifyNotification({ text: String(args.body) }, call.context)
      return { structured: { ...verified }, text: sanitizeText(verifiedText(verified)) }
    },
  },
}

/** webhooks_remove: by ids, behind a plan and a confirm (act.ts), each event looked up in the list. */
function removeTool(): Tool {
  const endpoint = ENDPOINTS.removeWebhookEvent
  const find = async (id: string, context: ToolCall['context']) => {
    const found = (await listWebhookEvents(context)).find((event) => event._id === id)
    if (found) return found
    throw new PayError(`The integration has no webhook event ${id}.`, { kind: 'not_found', status: 404 })
  }
  const source = {
    name: 'webhooks_remove',
    endpoint,
    shape: 'act' as const,
    verb: 'remove',
    runs: {
      summary: eventSummary,
      amountOf: () => ({ amount: undefined, currency: undefined }),
      get: find,
      act: {
        remove: async (ids: string[], context: ToolCall['context']) => {
          const run = await runBulk(
            ids,
            async (id) => {
              await accountSend('removeWebhookEvent', { id }, context)
              return 'removed'
            },
            { concurrency: 4 },
          )
          return { rows: run.results }
        },
      },
    },
  }
  const made = actTool(source)
  const forStep = made.forStep
  return {
    name: 'webhooks_remove',
    title: 'Remove webhook events',
    description: removeDescription('confirm'),
    inputSchema: objectSchema(made.properties, made.required),
    outputSchema: { type: 'object' },
    annotations: {
      title: 'Remove webhook events',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    },
    writes: true,
    ...(forStep
      ? {
          forStep: (step: PersonStep) => ({
            description: removeDescription(step),
            inputSchema: objectSchema(forStep(step), made.required),
          }),
        }
      : {}),
    call: made.call,
  }
}

/** webhooks_remove's description for how the person is reached (as tools.ts says it of the deletes). */
function removeDescription(step: PersonStep): string {
  const head = `Remove webhook events of the profile's integration by _id: their URLs are notified no more. ${SIGNED_IN} Needs --allow-writes.`
  const results = 'The answer is one result per id: {id, ok, status, error}.'
  if (step === 'refused')
    return `${head} Refused on this client: pay mcp was started with --require-person, and this client cannot ask the person (it offers no MCP elicitation).`
  if (step === 'elicitation')
    return `${head} pay asks the person itself, through your client (MCP elicitation): it shows them the plan (each id with its name, URL and whether it is enabled) and acts only if they accept. There is no confirm string. ${results}`
  return (
    `${head} The first call changes nothing: it answers the plan (each id with its name, URL and whether it is ` +
    'enabled) and a confirm string. Only a second call with the same ids and that confirm acts, once, within 10 ' +
    "minutes. You, the model, see the confirm string: the person's step is your client's approval of that second " +
    `call. Show the person the plan first, and never confirm a plan they did not agree to. ${results}`
  )
}

/** The account's tools (ACCOUNT_TOOL_ENDPOINTS). */
export function accountTools(): Tool[] {
  const made = (Object.keys(MADE) as (keyof typeof MADE)[]).map((name): Tool => {
    const tool = MADE[name]
    const sent = ACCOUNT_TOOL_ENDPOINTS[name].map((endpoint: EndpointName) => ENDPOINTS[endpoint])
    const writes = sent.some((endpoint) => endpoint.changesState)
    const title = name.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase())
    return {
      name,
      title,
      description: tool.description,
      inputSchema: objectSchema(tool.properties, tool.required),
      outputSchema: { type: 'object' },
      annotations: {
        title,
        readOnlyHint: !writes,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: name !== 'webhooks_verify',
      },
      writes,
      call: tool.call,
    }
  })
  return [...made, removeTool()]
}
