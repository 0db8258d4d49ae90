import { usageError } from '../errors.js'
import type { SandboxTarget } from '../runtime/context.js'
import { DURATION_FORMS, parseDuration } from '../shared/duration.js'
import { ENDPOINTS, type EndpointName } from '../shared/endpoints.js'
import { type Rec, sanitizeText } from '../values.js'
import type { SandboxActions } from '../work/sandbox/agent-actions.js'
import { withData } from './results.js'
import { type JsonSchema, objectSchema } from './schema.js'
import type { Tool, ToolCall } from './tool.js'
import { quoted } from './untrusted.js'

export type { SandboxActions }

/**
 * The sandbox's tools, on the sandbox profile only: the customer's outcome on a link
 * (sandbox_pay), the clock moved forward with the charges it brings (sandbox_clock_advance),
 * and what was sent to the sandbox (sandbox_requests, read-only), so that an assistant can
 * rehearse a task end to end without the service. Their endpoints are those the declarations
 * are SANDBOX_TOOL_ENDPOINTS'; the work is the sandbox commands' own plain functions, which
 * `pay mcp` hands in (SandboxActions, src/work/sandbox/agent-actions.ts): the agent imports nothing of
 * the sandbox.
 */

/** Where the sandbox tools act: the sandbox the profile reaches (pay mcp's own, or the user's running one). */
async function sandboxOf(call: ToolCall): Promise<SandboxTarget> {
  const { api, target } = await call.context.api()
  return { server: true, api, target }
}

interface SandboxTool {
  description: string
  properties: Record<string, JsonSchema>
  required: string[]
  call(
    args: Record<string, unknown>,
    call: ToolCall,
    actions: SandboxActions,
  ): Promise<{ structured: Rec; text: string }>
}

const ID: JsonSchema = {
  type: 'string',
  minLength: 1,
  description: 'The payment link _id (or its payment_url).',
}

const TOOLS: Record<string, (actions: SandboxActions) => SandboxTool> = {
  sandbox_pay: (actions) => ({
    description:
      'Play the customer on a sandbox payment link: pay it (paid becomes true), leave the payment pending (it ' +
      'stays unpaid and payable; a later paid outcome pays it), or cancel or fail it (it stays unpaid). Paying, a ' +
      'pending payment and a failed one notify the business’s webhook endpoints (payment_status 1, 2, 3), as ' +
      '`pay sandbox pay` does. The answer is {outcome, link, redirect_to}. Sandbox profile only; needs --allow-writes.',
    properties: {
      id: ID,
      outcome: {
        type: 'string',
        enum: actions.outcomes,
        default: actions.outcomes[0],
        description: 'What the customer does.',
      },
    },
    required: ['id'],
    async call(args, call) {
      const outcome = typeof args.outcome === 'string' ? args.outcome : actions.outcomes[0]
      const { settled, said } = await actions.pay(await sandboxOf(call), String(args.id), outcome)
      return { structured: settled, text: sanitizeText(said) }
    },
  }),
  sandbox_clock_advance: (actions) => ({
    description:
      'Move the sandbox clock forward by a duration (12h, 30d, 2w, 3mo, 1y, or ISO 8601 like P1M): every ' +
      'subscription charge that comes due is made, as a payment link. The answer is {now, charges_created}. ' +
      'Sandbox profile only; needs --allow-writes.',
    properties: { duration: { type: 'string', minLength: 1, description: `How far: ${DURATION_FORMS}.` } },
    required: ['duration'],
    async call(args, call) {
      const duration = String(args.duration)
      if (!parseDuration(duration))
        throw usageError(`"${duration}" is not a duration.`, `Durations: ${DURATION_FORMS}.`)
      const { moved, said } = await actions.advanceClock(await sandboxOf(call), duration)
      return { structured: moved, text: sanitizeText(said) }
    },
  }),
  sandbox_requests: (actions) => ({
    description:
      "The last requests the key's business sent to the sandbox, newest last (method, path, status, body with " +
      'secrets redacted): what an app, or this assistant, actually sent. The answer is {items}. Sandbox profile only.',
    properties: {
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 1000,
        description: 'The newest N (default: every one kept, up to 1,000).',
      },
    },
    required: [],
    async call(args, call) {
      const limit = typeof args.limit === 'number' ? args.limit : undefined
      const items = await actions.requests(await sandboxOf(call), limit)
      // What an app sent: its method, path and status quoted as data.
      const lines = items.map(
        (entry) =>
          `  ${quoted(entry.method)} ${quoted(entry.path)} ${typeof entry.status === 'number' ? entry.status : '-'}`,
      )
      return {
        structured: { items },
        text: withData(`${items.length} request${items.length === 1 ? '' : 's'}.`, lines),
      }
    },
  }),
}

/**
 * The endpoints each sandbox tool sends: what makes it a write (`pay mcp --allow-writes`), and
 * what `pay mcp` declares it calls (`static calls`).
 */
export const SANDBOX_TOOL_ENDPOINTS = {
  sandbox_pay: ['sandboxPay', 'sandboxPending', 'sandboxCancel', 'sandboxFail'],
  sandbox_clock_advance: ['sandboxMoveClock'],
  sandbox_requests: ['sandboxRequests'],
} as const satisfies Record<string, readonly EndpointName[]>

/** The sandbox's tools (`tools`: the endpoints each sends, a test adds one). */
export function sandboxTools(
  actions: SandboxActions,
  tools: Readonly<Record<string, readonly EndpointName[]>> = SANDBOX_TOOL_ENDPOINTS,
): Tool[] {
  const named = new Map(Object.entries(tools).map(([name, sent]) => [name, sent.map((n) => ENDPOINTS[n])]))
  return [...named].map(([name, served]) => {
    const make = TOOLS[name]
    if (!make)
      throw new Error(`pay mcp: the endpoint of ${name} is offered to agents, but no sandbox tool serves it.`)
    const tool = make(actions)
    const changes = served.some((endpoint) => endpoint.changesState)
    return {
      name,
      title: name.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase()),
      description: tool.description,
      inputSchema: objectSchema(tool.properties, tool.required),
      outputSchema: { type: 'object' },
      annotations: {
        title: name.replace(/_/g, ' '),
        readOnlyHint: !changes,
        destructiveHint: false,
        idempotentHint: !changes,
        openWorldHint: false,
      },
      writes: changes,
      call: (args: Record<string, unknown>, call: ToolCall) => tool.call(args, call, actions),
    }
  })
}
