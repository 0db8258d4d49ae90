import { createRequire } from 'node:module'
import path from 'node:path'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { CallToolResult, ClientCapabilities, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { PayError } from '../errors.js'
import { Output } from '../render/output.js'
import type { RunContext } from '../runtime/context.js'
import type { Endpoint } from '../shared/endpoints.js'
import { sanitizeText } from '../values.js'
import { accountTools } from './account/tools.js'
import { type Caps, Session } from './caps.js'
import { CONFIRM_TTL_MS, Plans } from './confirm.js'
import { instructionsFor } from './instructions.js'
import { Pager } from './pages.js'
import { type Answer, errorAnswer } from './results.js'
import { type SandboxActions, sandboxTools } from './sandbox-tools.js'
import { checkArguments } from './schema.js'
import type { Person, PersonStep, Tool } from './tool.js'
import { ToolIO } from './tool-io.js'
import { serviceTools } from './tools.js'

/**
 * `pay mcp`: an MCP server on stdio, with the official SDK's low-level Server (its tools are
 * JSON Schema made from the endpoint declarations, which the high-level McpServer would want as
 * zod shapes). The SDK is loaded here only, from node_modules (scripts/bundle.mjs keeps it out of
 * the bundle), so that no other command loads it, nor ajv, zod, express or hono with it.
 */

export interface McpOptions {
  allowWrites: boolean
  caps: Caps
  /** --require-person: deletes and cancels only where the client can ask the person (MCP elicitation). */
  requirePerson?: boolean
  /** pay's version, as the server's. */
  version: string
  /** The sandbox commands' plain functions, for the sandbox tools (on the sandbox profile). */
  sandbox: SandboxActions
  /** The declarations the tools are made from (a test adds one). */
  endpoints?: readonly Endpoint[]
}

/** The SDK's parts pay uses, from its CommonJS build. */
function loadSdk() {
  const require = createRequire(import.meta.url)
  const { Server } =
    require('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js')
  const { StdioServerTransport } =
    require('@modelcontextprotocol/sdk/server/stdio.js') as typeof import('@modelcontextprotocol/sdk/server/stdio.js')
  const { CallToolRequestSchema, ListToolsRequestSchema } =
    require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js')
  return { Server, StdioServerTransport, CallToolRequestSchema, ListToolsRequestSchema }
}

/** A tool's description and arguments for how a delete or cancel reaches the person (`step`). */
const shownFor = (tool: Tool, step: PersonStep) =>
  tool.forStep?.(step) ?? { description: tool.description, inputSchema: tool.inputSchema }

/** A tool as tools/list shows it to a client whose person is reached by `step`. */
const listed = (tool: Tool, step: PersonStep) => ({
  name: tool.name,
  title: tool.title,
  ...shownFor(tool, step),
  ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  annotations: tool.annotations,
})

/** Whether a client's capabilities let the server ask its person a question (form elicitation). */
export const asksPerson = (capabilities: ClientCapabilities | undefined): boolean =>
  capabilities?.elicitation?.form !== undefined

/** The one question a delete or cancel asks the person: a required boolean, `confirm`. */
export const CONFIRM_SCHEMA = {
  type: 'object' as const,
  properties: {
    confirm: {
      type: 'boolean' as const,
      title: 'Do it',
      description: 'Yes: pay acts on exactly this plan now. No: nothing is done.',
    },
  },
  required: ['confirm'],
}

/** An answer in MCP's terms: the short text, the structured content, and whether it is a tool error. */
const toResult = (answer: Answer): CallToolResult => ({
  content: [{ type: 'text', text: answer.text }],
  structuredContent: answer.structured,
  ...(answer.isError ? { isError: true } : {}),
})

/** The tools, the rails and the answers of one server: what serveMcp runs over stdio, and tests over memory. */
export class Agent {
  readonly tools: Tool[]
  private readonly byName: Map<string, Tool>
  private readonly plans: Plans
  private readonly session = new Session()
  private readonly pager = new Pager()

  constructor(
    private readonly options: McpOptions,
    private readonly context: RunContext,
    sandbox: boolean,
  ) {
    this.tools = [
      ...serviceTools(options.endpoints),
      ...accountTools(),
      ...(sandbox ? sandboxTools(options.sandbox) : []),
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    this.byName = new Map(this.tools.map((tool) => [tool.name, tool]))
    this.plans = new Plans(path.join(context.configDir, 'mcp-plans'), () => context.now())
  }

  /** How a delete or cancel reaches the person of a client: asked through it, by a confirm call, or refused. */
  stepFor(canAsk: boolean): PersonStep {
    return canAsk ? 'elicitation' : this.options.requirePerson ? 'refused' : 'confirm'
  }

  /** The tools as tools/list shows them to a client whose person is reached by `step`. */
  listed(step: PersonStep) {
    return this.tools.map((tool) => listed(tool, step))
  }

  /**
   * One tool call: checked (its name, writes allowed, its arguments as listed for this client),
   * then made in a run context of its own. `person`: the client's, when it can be asked.
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; person?: Person } = {},
  ): Promise<Answer> {
    const { signal, person } = options
    const tool = this.byName.get(name)
    if (!tool) {
      return errorAnswer(
        new PayError(`pay mcp has no tool named ${JSON.stringify(name)}.`, {
          kind: 'usage',
          hint: `Its tools: ${this.tools.map((known) => known.name).join(', ')}.`,
        }),
      )
    }
    if (tool.writes && !this.options.allowWrites) {
      return errorAnswer(
        new PayError(`${name} changes what the service holds, and pay mcp was started read-only.`, {
          kind: 'usage',
          hint: 'Start pay mcp with --allow-writes to allow creates, updates, deletes and cancels. Nothing was sent.',
        }),
      )
    }
    const errors = checkArguments(shownFor(tool, this.stepFor(person !== undefined)).inputSchema, args)
    if (Object.keys(errors).length > 0) {
      return errorAnswer(new PayError(`These are not arguments ${name} takes.`, { kind: 'usage', errors }))
    }
    const io = new ToolIO(signal)
    const part = {
      command: `pay mcp ${name}`,
      io,
      out: new Output(io),
      listScope: { all: true, limit: undefined, limitGiven: false, takesAll: true },
    }
    try {
      return await tool.call(args, {
        context: this.context.within({ ...part, consent: { yes: false, dryRun: false } }),
        agreed: this.context.within({ ...part, consent: { yes: true, dryRun: false } }),
        caps: this.options.caps,
        session: this.session,
        plans: this.plans,
        person,
        requirePerson: this.options.requirePerson === true,
        pager: this.pager,
        said: () => io.said,
      })
    } catch (error) {
      return errorAnswer(error)
    }
  }

  close(): void {
    this.pager.closeAll()
  }
}

/**
 * Serves the tools on the run's stdin and stdout until the client closes stdin (every call in
 * flight answered first), or Ctrl-C / SIGTERM. stderr says where the tools act, and one line
 * per call; stdout carries the protocol alone.
 */
export async function serveMcp(options: McpOptions, context: RunContext): Promise<void> {
  const connected = await context.api()
  const { target } = connected
  const agent = new Agent(options, context, connected.sandbox)
  const { stderr } = context.out
  const say = (text: string) => stderr.write(`${sanitizeText(text)}\n`)
  say(
    `pay mcp: ${agent.tools.length} tools for profile "${target.profile}" at ${target.baseUrl}, ` +
      (options.allowWrites
        ? 'changes allowed (--allow-writes).'
        : 'read-only (--allow-writes allows changes).'),
  )
  // A person who typed `pay mcp` at a terminal: it is a client's to start (docs/agents.md).
  if (context.io.canPrompt)
    say(
      "Waiting for an MCP client on stdin: an assistant's client starts pay mcp itself (docs/agents.md). Ctrl-C stops.",
    )
  const sdk = loadSdk()
  const server: Server = new sdk.Server(
    { name: 'pay', title: 'pay', version: options.version },
    {
      capabilities: { tools: {} },
      instructions: instructionsFor({
        target,
        allowWrites: options.allowWrites,
        caps: options.caps,
        sandbox: connected.sandbox,
        requirePerson: options.requirePerson,
      }),
    },
  )
  // The person at the client, when it can ask them: a delete or cancel asks through it (elicitation/create).
  const personOf = (extra: { signal: AbortSignal; requestId: string | number }): Person | undefined =>
    asksPerson(server.getClientCapabilities())
      ? {
          async confirm(message, question) {
            let result: Awaited<ReturnType<Server['elicitInput']>>
            try {
              result = await server.elicitInput(
                {
                  mode: 'form',
                  message,
                  requestedSchema: {
                    ...CONFIRM_SCHEMA,
                    properties: { confirm: { ...CONFIRM_SCHEMA.properties.confirm, title: question } },
                  },
                },
                { signal: extra.signal, timeout: CONFIRM_TTL_MS, relatedRequestId: extra.requestId },
              )
            } catch (error) {
              throw new PayError(
                `pay mcp could not ask the person: ${(error as Error).message}. Nothing was done.`,
                { kind: 'cancelled' },
              )
            }
            return result.action === 'accept' && result.content?.confirm === true ? 'yes' : 'no'
          },
        }
      : undefined
  server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({
    tools: agent.listed(agent.stepFor(asksPerson(server.getClientCapabilities()))),
  }))
  server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params
    const answer = await agent.call(name, request.params.arguments ?? {}, {
      signal: extra.signal,
      person: personOf(extra),
    })
    say(`pay mcp: ${name}: ${answer.text.split('\n')[0]}`)
    return toResult(answer)
  })
  const stdin = context.io.stdin
  let interrupted = false
  await new Promise<void>((resolve, reject) => {
    const transport = new Answering(new sdk.StdioServerTransport(stdin, context.io.stdout), resolve)
    stdin.once('end', () => transport.ended())
    stdin.once('error', reject)
    context.io.onInterrupt(
      () => {
        // On a terminal, Ctrl-C left "^C" where the cursor was: what follows starts below it.
        if (context.io.stderrIsTerminal) stderr.write('\n')
        interrupted = true
        resolve()
      },
      { terminate: true },
    )
    server.connect(transport).catch(reject)
  })
  agent.close()
  await server.close()
  if (interrupted) throw new PayError('pay mcp stopped.', { kind: 'cancelled' })
}

/**
 * The stdio transport, counting the requests the client sent and the answers sent back, so that
 * the server ends only once stdin has ended and every request has its answer (`printf … | pay
 * mcp` answers them all).
 */
class Answering implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: Transport['onmessage']
  private readonly waiting = new Set<string | number>()
  private closed = false

  constructor(
    private readonly inner: StdioServerTransport,
    private readonly done: () => void,
  ) {
    inner.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && 'id' in message) this.waiting.add(message.id)
      this.onmessage?.(message)
    }
    inner.onerror = (error) => this.onerror?.(error)
    inner.onclose = () => this.onclose?.()
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  close(): Promise<void> {
    return this.inner.close()
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.inner.send(message)
    if (!('method' in message) && 'id' in message) {
      this.waiting.delete(message.id as string | number)
      this.finish()
    }
  }

  /** stdin ended: the server ends once every request has its answer. */
  ended(): void {
    this.closed = true
    this.finish()
  }

  private finish(): void {
    if (this.closed && this.waiting.size === 0) this.done()
  }
}
