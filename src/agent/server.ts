import { createRequire } from 'node:module'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { PayError } from '../errors.js'
import { Output } from '../render/output.js'
import type { RunContext } from '../runtime/context.js'
import type { Endpoint } from '../shared/endpoints.js'
import { sanitizeText } from '../values.js'
import { accountTools } from './account-tools.js'
import type { Caps } from './caps.js'
import { Confirmations } from './confirm.js'
import { instructionsFor } from './instructions.js'
import { Pager } from './pages.js'
import { type Answer, errorAnswer } from './results.js'
import { type SandboxActions, sandboxTools } from './sandbox-tools.js'
import { checkArguments } from './schema.js'
import type { Tool } from './tool.js'
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

/** A tool as tools/list shows it. */
const listed = (tool: Tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.inputSchema,
  ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  annotations: tool.annotations,
})

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
  private readonly confirmations: Confirmations
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
    this.confirmations = new Confirmations(() => context.now())
  }

  /** One tool call: checked (its name, writes allowed, its arguments), then made in a run context of its own. */
  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Answer> {
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
    const errors = checkArguments(tool.inputSchema, args)
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
        confirmations: this.confirmations,
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
      }),
    },
  )
  server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({ tools: agent.tools.map(listed) }))
  server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params
    const answer = await agent.call(name, request.params.arguments ?? {}, extra.signal)
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
