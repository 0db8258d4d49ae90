import type { RunContext } from '../runtime/context.js'
import type { Endpoint, Preset } from '../shared/endpoints.js'
import type { Caps, Session } from './caps.js'
import type { Plans } from './confirm.js'
import type { Pager } from './pages.js'
import type { Answer } from './results.js'
import type { ResourceRuns } from './runs.js'
import type { JsonSchema } from './schema.js'

/** What a tool of `pay mcp` is (tools.ts makes them from the declarations), and what one call of it works with. */

/** What one tool call works with. */
export interface ToolCall {
  /** The call's own run context: no terminal, its changes journaled as `pay mcp <tool>`. */
  context: RunContext
  /** The same, agreed to act (--yes): for the second call of a delete or cancel, once confirmed. */
  agreed: RunContext
  /** What the call's plain functions said on stderr so far (a warning). */
  said(): string
  caps: Caps
  /** What this server's deletes and cancels acted on so far, which the caps count too. */
  session: Session
  /** The plans a confirm string stands for, kept where another pay mcp of the user finds them. */
  plans: Plans
  /** The person at the client, when the client can ask them (MCP elicitation). */
  person?: Person
  /** pay mcp --require-person: no delete or cancel unless the person can be asked. */
  requirePerson: boolean
  pager: Pager
}

/** What the person answered a question: yes (accept with confirm: true), or anything else. */
export type PersonAnswer = 'yes' | 'no'

/** The person at the client, asked through MCP elicitation (elicitation/create). */
export interface Person {
  /** Shows `message` and asks the person to confirm it (a required boolean `confirm`). */
  confirm(message: string, question: string): Promise<PersonAnswer>
}

/**
 * How a delete or cancel reaches its person: asked through the client (`elicitation`), or by a
 * second call with the plan's confirm string, which the client's approval prompt stands before
 * (`confirm`); `refused` on a client without elicitation when pay mcp --require-person.
 */
export type PersonStep = 'elicitation' | 'confirm' | 'refused'

export interface Annotations {
  title: string
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: boolean
}

export interface Tool {
  name: string
  title: string
  description: string
  inputSchema: JsonSchema
  outputSchema?: JsonSchema
  annotations: Annotations
  /** It changes state: refused unless pay mcp was started with --allow-writes. */
  writes: boolean
  /** A delete or cancel: its description and arguments for how the person is reached (else those above). */
  forStep?(step: PersonStep): { description: string; inputSchema: JsonSchema }
  call(args: Record<string, unknown>, call: ToolCall): Promise<Answer>
}

/** What a tool does with its endpoint. */
export type Shape = 'list' | 'get' | 'create' | 'update' | 'act'

/** One endpoint (or a preset of it) as a tool is made of it. */
export interface ToolSource {
  name: string
  endpoint: Endpoint
  preset?: Preset
  shape: Shape
  verb: string
  runs?: Partial<ResourceRuns>
  /** The declared GET of the same record, which a plan reads each id with when `runs` has no `get`. */
  lookUp?: Endpoint
}
