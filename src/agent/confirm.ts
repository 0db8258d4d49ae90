import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { PayError } from '../errors.js'
import type { Target } from '../runtime/context.js'
import { openPrivate, readPrivate } from '../shared/private-file.js'
import type { Rec } from '../values.js'

/**
 * The plans of `pay mcp`'s delete and cancel tools, for clients that cannot ask the person
 * (no MCP elicitation): the first call answers a plan and a `confirm` string, and only a later
 * call of the same tool, with the same ids, on the same profile, with that string, acts: once,
 * within 10 minutes. The string is random (144 bits) and the plan is kept in a file named by its
 * hash, 0600 in a 0700 directory of the user's under pay's config dir, never through a symbolic
 * link, so that another `pay mcp` process of the same user can confirm it: clients that start a
 * server for every call (the MCP Inspector's CLI mode) confirm too. A plan is used up by renaming
 * its file, which one process alone can do: two processes cannot both act on it. A refusal says
 * its real reason (PlanRefused): not made by pay mcp, used, replaced (its records changed),
 * expired, another tool, another profile, other ids. A refused attempt does not use it up.
 */

/** How long a plan may be confirmed. */
export const CONFIRM_TTL_MS = 10 * 60 * 1000
/** How long a used or expired plan's file stays, so that a refusal can say why; then it goes. */
const KEPT_AFTER_MS = 24 * 60 * 60 * 1000

/** The arguments in one form whatever the order of their keys (pages.ts keys its walks by it). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** A plan as kept: what it acts on, where, until when, and each record as it was read (by id). */
export interface Plan {
  tool: string
  ids: string[]
  profile: string
  base_url: string
  expires: number
  records: Record<string, Rec>
}

/** Why a confirm string was refused. */
export type Refusal =
  | 'unknown'
  | 'used'
  | 'changed'
  | 'expired'
  | 'other_tool'
  | 'other_profile'
  | 'other_ids'

export class PlanRefused extends PayError {
  constructor(
    readonly reason: Refusal,
    message: string,
  ) {
    super(`${message} Nothing was done.`, {
      kind: 'usage',
      hint: 'Call the tool again without confirm to get a new plan and its confirm string.',
    })
  }
}

const CONFIRM = /^[A-Za-z0-9_-]{24}$/
/** A plan's file: waiting to be confirmed, acted on, or replaced by a new plan. */
type State = 'plan' | 'used' | 'changed'

const ownUid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined)

/** `dir` made (0700) when missing, tightened when looser; refused when it is a link or another user's. */
function privateDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = fs.lstatSync(dir)
  const why = stat.isSymbolicLink()
    ? 'is a symbolic link (pay does not follow one)'
    : !stat.isDirectory()
      ? 'is not a directory'
      : ownUid() !== undefined && stat.uid !== ownUid()
        ? 'belongs to another user'
        : undefined
  if (why)
    throw new PayError(`pay mcp cannot keep its plans: ${dir} ${why}.`, {
      kind: 'general',
      hint: 'Remove it; pay makes it again, 0700. Nothing was done.',
    })
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700)
}

const list = (ids: string[], most = 3) =>
  `${ids.slice(0, most).join(', ')}${ids.length > most ? ` and ${ids.length - most} more` : ''}`

export class Plans {
  constructor(
    /** Where the plans are kept: `<config dir>/mcp-plans`. */
    private readonly dir: string,
    private readonly now: () => number,
    private readonly ttlMs = CONFIRM_TTL_MS,
  ) {}

  /** Keeps a plan (its expiry set here); its confirm string, and when it expires. */
  issue(plan: Omit<Plan, 'expires'>): { confirm: string; expiresAt: string } {
    privateDirectory(this.dir)
    this.clearOld()
    const confirm = randomBytes(18).toString('base64url')
    const expires = this.now() + this.ttlMs
    const fd = openPrivate(this.file(confirm, 'plan'), 'create')
    try {
      fs.writeSync(fd, `${JSON.stringify({ ...plan, expires } satisfies Plan)}\n`)
      // Dated by the server's clock, which clears it (a rename keeps the date).
      fs.futimesSync(fd, new Date(this.now()), new Date(this.now()))
    } finally {
      fs.closeSync(fd)
    }
    return { confirm, expiresAt: new Date(expires).toISOString() }
  }

  /**
   * The plan `confirm` stands for, when it may act: made by pay mcp for this user, neither used
   * nor replaced nor expired, for this tool, this profile and exactly these ids (in any order).
   * Throws PlanRefused saying which it is not; uses nothing up.
   */
  open(confirm: string, tool: string, ids: string[], target: Target): Plan {
    const plan = CONFIRM.test(confirm) ? this.read(confirm) : undefined
    if (!plan) {
      const state = CONFIRM.test(confirm) ? this.stateOf(confirm) : undefined
      if (state === 'used')
        throw new PlanRefused('used', 'This confirm string was used already: it confirms one action.')
      if (state === 'changed')
        throw new PlanRefused(
          'changed',
          "This confirm string's plan was replaced: its records changed before it was confirmed, and a new plan was answered.",
        )
      throw new PlanRefused(
        'unknown',
        'This confirm string is not one pay mcp made for you (or its plan was cleared, a day after it expired).',
      )
    }
    if (this.now() > plan.expires)
      throw new PlanRefused(
        'expired',
        `This confirm string expired at ${new Date(plan.expires).toISOString()} (a plan may be confirmed for ${this.ttlMs / 60_000} minutes).`,
      )
    if (plan.tool !== tool)
      throw new PlanRefused('other_tool', `This confirm string is for a plan of ${plan.tool}, not ${tool}.`)
    if (plan.profile !== target.profile || plan.base_url !== target.baseUrl)
      throw new PlanRefused(
        'other_profile',
        `This confirm string is for a plan on profile "${plan.profile}" at ${plan.base_url}; this server acts on profile "${target.profile}" at ${target.baseUrl}.`,
      )
    const planned = new Set(plan.ids)
    const given = new Set(ids)
    const left = plan.ids.filter((id) => !given.has(id))
    const added = ids.filter((id) => !planned.has(id))
    if (left.length > 0 || added.length > 0) {
      const what = [
        left.length > 0 ? `leaves out ${left.length} of its ${plan.ids.length} (${list(left)})` : '',
        added.length > 0 ? `adds ${added.length} it does not have (${list(added)})` : '',
      ].filter(Boolean)
      throw new PlanRefused(
        'other_ids',
        `This confirm string is for other ids: this call ${what.join(' and ')}. Give the plan's ids, each once.`,
      )
    }
    return plan
  }

  /**
   * Uses a plan up (`used`: it acts now; `changed`: a new plan replaces it), in one rename that a
   * single process can make: the loser of a race is refused as used.
   */
  use(confirm: string, as: Exclude<State, 'plan'> = 'used'): void {
    try {
      fs.renameSync(this.file(confirm, 'plan'), this.file(confirm, as))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      throw new PlanRefused('used', 'This confirm string was used already: it confirms one action.')
    }
  }

  private file(confirm: string, state: State): string {
    const name = createHash('sha256').update(confirm).digest('base64url')
    return path.join(this.dir, `${name}.${state}`)
  }

  private read(confirm: string): Plan | undefined {
    let text: string | undefined
    try {
      text = readPrivate(this.file(confirm, 'plan'))
    } catch {
      return undefined
    }
    try {
      const plan = text === undefined ? undefined : (JSON.parse(text) as Partial<Plan>)
      const whole =
        plan &&
        typeof plan.tool === 'string' &&
        Array.isArray(plan.ids) &&
        typeof plan.expires === 'number' &&
        typeof plan.records === 'object'
      return whole ? (plan as Plan) : undefined
    } catch {
      return undefined
    }
  }

  private stateOf(confirm: string): State | undefined {
    for (const state of ['used', 'changed'] as const) {
      try {
        if (fs.lstatSync(this.file(confirm, state)).isFile()) return state
      } catch {}
    }
    return undefined
  }

  /** Removes the files of plans that expired more than a day ago. */
  private clearOld(): void {
    const before = this.now() - this.ttlMs - KEPT_AFTER_MS
    for (const name of fs.readdirSync(this.dir)) {
      if (!/^[A-Za-z0-9_-]{43}\.(plan|used|changed)$/.test(name)) continue
      const file = path.join(this.dir, name)
      try {
        if (fs.lstatSync(file).mtimeMs < before) fs.rmSync(file, { force: true })
      } catch {}
    }
  }
}
