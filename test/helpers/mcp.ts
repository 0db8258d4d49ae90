import { PassThrough } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js'
import { BIN, cleanEnv, expectNoKeyInOutput } from './cli.js'
import { type InProcessOptions, type InProcessResult, runInProcess } from './in-process.js'

/**
 * `pay mcp` driven by the MCP SDK's own client: in this process (runInProcess, its stdin a live
 * stream and its stdout read as it is written), or as bin/run.js over stdio (StdioClientTransport),
 * as an assistant's client runs it.
 */

export interface McpSession {
  client: Client
  /** Calls a tool; the answer as the client got it (a tool error is an answer, isError set). */
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>
  /** What pay mcp wrote on stderr so far. */
  stderr(): string
  /** Closes stdin, as a client does when it is done; how the run ended. */
  close(): Promise<{ code: number | null; stderr: string }>
}

export interface ToolAnswer {
  isError: boolean
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON a tool answered
  structured: any
}

const answerOf = (result: CallToolResult): ToolAnswer => ({
  isError: result.isError === true,
  text: result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
  structured: result.structuredContent,
})

const CLIENT = { name: 'pay-tests', version: '1.0.0' }

/**
 * The person at a client that offers MCP elicitation: what they answer each question the server
 * asks (elicitation/create), given its params. Without one, the client declares no elicitation.
 */
export type Elicit = (params: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>

/** The SDK's client, declaring elicitation and answering it with `elicit` when given. */
function clientOf(elicit?: Elicit): Client {
  if (!elicit) return new Client(CLIENT)
  const client = new Client(CLIENT, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params))
  return client
}

function session(
  client: Client,
  stderr: () => string,
  end: () => Promise<{ code: number | null; stderr: string }>,
  secrets: string[] = [],
): McpSession {
  return {
    client,
    stderr,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult
      // The key canary: no answer ever holds a key the server was given.
      const text = JSON.stringify(result)
      for (const secret of secrets)
        if (text.includes(secret)) throw new Error(`the API key appeared in the answer of ${name}`)
      return answerOf(result)
    },
    close: end,
  }
}

/** A transport over the stdin and stdout of a run in this process. */
class InProcessTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private pending = ''

  constructor(readonly stdin: PassThrough) {}

  async start(): Promise<void> {}

  /** What pay mcp wrote on stdout: one JSON-RPC message per line. */
  written(chunk: Buffer): void {
    this.pending += chunk.toString('utf8')
    let newline = this.pending.indexOf('\n')
    while (newline !== -1) {
      const line = this.pending.slice(0, newline)
      this.pending = this.pending.slice(newline + 1)
      if (line.trim() !== '') this.onmessage?.(JSON.parse(line) as JSONRPCMessage)
      newline = this.pending.indexOf('\n')
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.stdin.write(`${JSON.stringify(message)}\n`)
  }

  async close(): Promise<void> {
    this.stdin.end()
    this.onclose?.()
  }
}

/** `pay mcp …args` in this process, connected to the SDK's client. */
export async function mcpInProcess(
  args: string[],
  options: InProcessOptions = {},
  elicit?: Elicit,
): Promise<McpSession & { ended: Promise<InProcessResult> }> {
  const transport = new InProcessTransport(new PassThrough())
  let stderrText = () => ''
  const ended = runInProcess(['mcp', ...args], {
    ...options,
    stdinStream: transport.stdin,
    started: (io) => {
      io.stdout.onWrite = (chunk) => transport.written(chunk)
      stderrText = () => io.stderr.text
    },
  })
  const client = clientOf(elicit)
  // A run that fails before it serves (a bad flag) answers nothing: its end is the news.
  await Promise.race([
    client.connect(transport),
    ended.then((result) => Promise.reject(new Error(`pay mcp ended: ${result.stderr}`))),
  ])
  const end = async () => {
    await client.close()
    const result = await ended
    return { code: result.code, stderr: result.stderr }
  }
  return { ...session(client, () => stderrText(), end, keysOf(options.env)), ended }
}

/** `bin/run.js mcp …args` as a child process, as an MCP client starts it, in a clean environment (cleanEnv). */
export async function mcpProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
  elicit?: Elicit,
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: cleanEnv(env),
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const client = clientOf(elicit)
  const exited = new Promise<number | null>((resolve) => {
    transport.onclose = () => resolve(null)
  })
  await client.connect(transport)
  const end = async () => {
    await client.close()
    await exited
    const result = expectNoKeyInOutput(
      ['mcp', ...args],
      { env: cleanEnv(env) },
      { code: 0, signal: null, stdout: '', stderr },
    )
    return { code: null, stderr: result.stderr }
  }
  return session(client, () => stderr, end, keysOf(env))
}

/** The key a run was given, which no answer may hold (the sandbox's own is public). */
const keysOf = (env: Record<string, string | undefined> = {}) =>
  [env.PAY_API_KEY].filter((key): key is string => key !== undefined && key.length >= 8)
