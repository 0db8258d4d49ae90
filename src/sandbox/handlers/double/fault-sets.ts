/**
 * The fault rules in force: one set per business, each rule with its counters (matched, faulted,
 * what an `xN` has left) and its own seeded stream for `P%`, and which rule a request meets
 * (pick). The rules themselves are read by faults.ts. No I/O: the server applies what `pick`
 * decides (test-double.ts).
 */
import { effectText, type Fault, type FaultRule, whenText } from './faults.js'
import { WEBHOOK_METHOD } from './webhook-faults.js'

/** Whether `method` and `path` (no query, no trailing slash) are what the rule names. */
function matches(rule: FaultRule, method: string, path: string): boolean {
  if (rule.method !== '*' && rule.method !== method) return false
  if ((rule.method === WEBHOOK_METHOD) !== (method === WEBHOOK_METHOD)) return false
  const segments = path.split('/').slice(1)
  if (segments.length !== rule.segments.length) return false
  return rule.segments.every((segment, i) => segment === '*' || segment === segments[i])
}

/** A rule as `GET /_sandbox/faults` shows it, with what it did so far. */
export interface FaultRuleState {
  rule: string
  method: string
  path: string
  effect: string
  when: string | null
  after: boolean
  /** Requests it matched (whether it fired or not). */
  matched: number
  /** Requests it faulted. */
  faulted: number
  /** For `xN`: how many it will still fault; otherwise null. */
  remaining: number | null
}

/** The rules of one business, with their counters and random streams. */
class FaultSet {
  private readonly entries: {
    rule: FaultRule
    matched: number
    faulted: number
    remaining: number
    draw: () => number
  }[]

  constructor(
    rules: readonly FaultRule[],
    readonly seed: number,
  ) {
    this.entries = rules.map((rule, index) => ({
      rule,
      matched: 0,
      faulted: 0,
      remaining: rule.when.kind === 'times' ? rule.when.count : Number.POSITIVE_INFINITY,
      // A stream of its own per rule: what one rule draws never depends on the requests of another.
      draw: mulberry32(hash32(`${seed}\u0000${index}\u0000${rule.text}`)),
    }))
  }

  get size(): number {
    return this.entries.length
  }

  /** The first rule that matches and fires; a rule that matches but does not fire lets the next try. */
  pick(method: string, path: string): Fault | undefined {
    for (const entry of this.entries) {
      if (entry.remaining <= 0 || !matches(entry.rule, method, path)) continue
      entry.matched++
      const { when } = entry.rule
      if (when.kind === 'percent' && entry.draw() * 100 >= when.percent) continue
      entry.faulted++
      entry.remaining--
      const { effect, after } = entry.rule
      const label = [effectText(effect), whenText(when), after ? 'after' : undefined]
        .filter(Boolean)
        .join(' ')
      return { effect, after, label }
    }
    return undefined
  }

  list(): FaultRuleState[] {
    return this.entries.map(({ rule, matched, faulted, remaining }) => ({
      rule: rule.text,
      method: rule.method,
      path: rule.method === WEBHOOK_METHOD ? rule.segments[0] : `/${rule.segments.join('/')}`,
      effect: effectText(rule.effect),
      when: whenText(rule.when) ?? null,
      after: rule.after,
      matched,
      faulted,
      remaining: Number.isFinite(remaining) ? remaining : null,
    }))
  }
}

/** `{seed, rules}`: what `GET /_sandbox/faults` answers. */
export interface FaultList {
  seed: number
  rules: FaultRuleState[]
}

/** A seed for runs that were given none: said by `pay sandbox start`, so that a run can be repeated. */
export const randomSeed = () => Math.floor(Math.random() * 2 ** 32)

export const MAX_SEED = 2 ** 32 - 1

/**
 * The fault rules of a sandbox, one set per business (a business's rules fault its own requests
 * only, and the control routes change the caller's set only), each with its own seed: the seed a
 * business sets drives its own `P%` draws, and neither shows in nor moves another's. Every
 * business starts with the sandbox's seed. `active` is false while no business has a rule: the
 * server then spends one test per request on faults.
 */
export class FaultSets {
  private readonly sets = new Map<number, FaultSet>()
  /** Each business's seed, once set (with its rules, or on its own). */
  private readonly seeds = new Map<number, number>()
  active = false

  constructor(
    private readonly businesses: readonly number[],
    rules: readonly FaultRule[] = [],
    private readonly startSeed: number = randomSeed(),
  ) {
    if (rules.length > 0) this.set(undefined, rules)
  }

  /**
   * Replaces the rules of `business` (each business's when undefined), their counters started
   * again, drawn from `seed` (default: that business's seed so far).
   */
  set(business: number | undefined, rules: readonly FaultRule[], seed?: number): void {
    for (const id of business === undefined ? this.businesses : [business]) {
      const own = seed ?? this.seedOf(id)
      this.seeds.set(id, own)
      if (rules.length === 0) this.sets.delete(id)
      else this.sets.set(id, new FaultSet(rules, own))
    }
    this.active = this.sets.size > 0
  }

  pick(business: number, method: string, path: string): Fault | undefined {
    return this.sets.get(business)?.pick(method, path)
  }

  list(business: number): FaultList {
    return { seed: this.seedOf(business), rules: this.sets.get(business)?.list() ?? [] }
  }

  private seedOf(business: number): number {
    return this.seeds.get(business) ?? this.startSeed
  }
}

/** FNV-1a, 32 bits: a seed for a rule's stream from the run's seed and the rule. */
function hash32(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** A small, well-known seeded generator: numbers in [0, 1), the same for the same seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
