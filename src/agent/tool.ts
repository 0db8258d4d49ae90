import type { RunContext } from '../runtime/context.js'
import type { Endpoint, Preset } from '../shared/endpoints.js'
import type { Caps } from './caps.js'
import type { Confirmations } from './confirm.js'
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
  confirmations: Confirmations
  pager: Pager
}

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
