/**
 * Faults on purpose: rules that make the sandbox fail some requests, so that a client's retries,
 * timeouts and "may have been created" path can be tested against the real service double. A rule is one line, `METHOD PATH EFFECT [WHEN] [after]`:
 * - METHOD: GET, POST, PUT, PATCH, DELETE, HEAD, or `*` for any;
 * - PATH: a path, where a segment `*` matches any one segment (`/payment-links/*`);
 * - EFFECT: a status 400-599 (`429` adds `Retry-After: 1`), `latency=300ms` (or `=2s`), `reset`
 *   (the connection is cut) or `hang` (no answer, ever);
 * - WHEN: `x3` (the next three requests it matches), `20%` (each with that chance, drawn from a
 *   seeded generator, so that a run can be repeated), or nothing (every one);
 * - `after`: the request is carried out, then its answer lost (otherwise nothing is done).
 * A request can also ask for its own fault with the header `Pay-Sandbox-Fault: EFFECT [after]`.
 * The sandbox's notifications take rules of their own, `WEBHOOK EVENT EFFECT [xN|P%]`
 * (webhook-faults.ts), kept and counted with these.
 *
 * This module is the grammar: rules read from text and written back. What the rules of each
 * business did so far, and which one a request meets, is fault-sets.ts; the server applies what
 * it decides (test-double.ts). Neither does any I/O.
 */
import { parseWebhookRule, WEBHOOK_METHOD, type WebhookEffect, webhookEffectText } from './webhook-faults.js'

export type FaultEffect =
  | { kind: 'status'; status: number }
  | { kind: 'latency'; ms: number }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | WebhookEffect

export type FaultWhen =
  | { kind: 'every' }
  | { kind: 'times'; count: number }
  | { kind: 'percent'; percent: number }

export interface FaultRule {
  /** The rule as written back: `POST /payment-links 503 x3 after`. */
  text: string
  /** A verb in capitals, or `*`. */
  method: string
  /** The path's segments; `*` matches any one. */
  segments: string[]
  effect: FaultEffect
  when: FaultWhen
  after: boolean
}

/** What a request gets: an effect, when it applies (before acting or after), and why. */
export interface Fault {
  effect: FaultEffect
  after: boolean
  /** How the request log and the recorded requests name it: `503 x3 after` (a rule's), `reset (header)`. */
  label: string
}

/** A rule that cannot be read, with what is wrong in it. */
export class FaultRuleError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FaultRuleError'
  }
}

export const FAULT_HEADER = 'pay-sandbox-fault'

export const FAULT_GRAMMAR = 'METHOD PATH EFFECT [xN|P%] [after], e.g. "POST /payment-links 503 x2"'

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'])

/** The longest latency a rule may add: ten minutes. */
export const MAX_LATENCY_MS = 600_000
const MAX_TIMES = 1_000_000

/** A rule, or an error naming what is wrong: `FaultRuleError`. */
export function parseFaultRule(line: string): FaultRule {
  const words = line.trim().split(/\s+/).filter(Boolean)
  if (words[0]?.toUpperCase() === WEBHOOK_METHOD) return parseWebhookRule(line, WEBHOOK_GRAMMAR)
  if (words.length < 3) {
    throw new FaultRuleError(
      `"${line.trim()}" is not a fault rule: it needs a method, a path and an effect (${FAULT_GRAMMAR}).`,
    )
  }
  const [methodWord, path, effectWord, ...rest] = words
  const method = methodWord.toUpperCase()
  if (method !== '*' && !METHODS.has(method)) {
    throw new FaultRuleError(
      `"${methodWord}" is not a method: give GET, POST, PUT, PATCH, DELETE, HEAD or * (in "${line.trim()}").`,
    )
  }
  const segments = parsePath(path, line)
  const effect = parseEffect(effectWord, line)
  let when: FaultWhen = { kind: 'every' }
  let after = false
  let sawWhen = false
  for (const word of rest) {
    if (word.toLowerCase() === 'after' && !after) {
      after = true
      continue
    }
    const parsed = sawWhen ? undefined : parseWhen(word)
    if (parsed === undefined) {
      throw new FaultRuleError(
        `"${word}" is not understood in "${line.trim()}": after the effect comes xN (the next N requests), ` +
          'P% (a chance), then "after", each at most once.',
      )
    }
    if (parsed instanceof FaultRuleError) throw new FaultRuleError(`${parsed.message} (in "${line.trim()}")`)
    when = parsed
    sawWhen = true
  }
  const rule = { method, segments, effect, when, after }
  return { ...rule, text: ruleText(rule) }
}

/** `Pay-Sandbox-Fault: EFFECT [after]`: the fault a request asks for itself. */
export function parseFaultHeader(value: string): Fault {
  const words = value.trim().split(/\s+/).filter(Boolean)
  const afterGiven = words.length === 2 && words[1].toLowerCase() === 'after'
  if (words.length === 0 || words.length > 2 || (words.length === 2 && !afterGiven)) {
    throw new FaultRuleError(
      `The Pay-Sandbox-Fault header must be EFFECT or EFFECT after (a status 400-599, latency=300ms, reset or hang), not "${value.trim()}".`,
    )
  }
  const effect = parseEffect(words[0], value)
  return { effect, after: afterGiven, label: `${effectText(effect)}${afterGiven ? ' after' : ''} (header)` }
}

function parsePath(path: string, line: string): string[] {
  if (!path.startsWith('/')) {
    throw new FaultRuleError(`"${path}" is not a path: it starts with / (in "${line.trim()}").`)
  }
  if (/[?#]/.test(path)) {
    throw new FaultRuleError(
      `"${path}" holds a query or a fragment: a rule matches the path alone (in "${line.trim()}").`,
    )
  }
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path
  const segments = trimmed.split('/').slice(1)
  if (segments.some((segment) => segment === '' && trimmed !== '/')) {
    throw new FaultRuleError(`"${path}" has an empty segment (in "${line.trim()}").`)
  }
  if (segments.some((segment) => segment !== '*' && segment.includes('*'))) {
    throw new FaultRuleError(
      `"${path}": * stands for a whole segment (/payment-links/*), not part of one (in "${line.trim()}").`,
    )
  }
  if (segments[0] === '_sandbox') {
    throw new FaultRuleError(
      `"${path}": the sandbox's own routes (/_sandbox/…) are never faulted, so that faults can always be cleared.`,
    )
  }
  return segments
}

function parseEffect(word: string, line: string): FaultEffect {
  const lower = word.toLowerCase()
  if (lower === 'reset') return { kind: 'reset' }
  if (lower === 'hang') return { kind: 'hang' }
  if (/^\d+$/.test(word)) {
    const status = Number(word)
    if (status < 400 || status > 599) {
      throw new FaultRuleError(
        `${word} is not a status a fault can answer: give one from 400 to 599 (in "${line.trim()}").`,
      )
    }
    return { kind: 'status', status }
  }
  const latency = /^latency=(\d+(?:\.\d+)?)(ms|s)$/.exec(lower)
  if (latency) {
    const ms = Math.round(Number(latency[1]) * (latency[2] === 's' ? 1000 : 1))
    if (ms < 1 || ms > MAX_LATENCY_MS) {
      throw new FaultRuleError(
        `${word}: a latency is from 1ms to ${MAX_LATENCY_MS / 60_000} minutes (in "${line.trim()}").`,
      )
    }
    return { kind: 'latency', ms }
  }
  if (lower.startsWith('latency')) {
    throw new FaultRuleError(
      `"${word}" is not a latency: write latency=300ms or latency=2s (in "${line.trim()}").`,
    )
  }
  throw new FaultRuleError(
    `"${word}" is not an effect: give a status from 400 to 599, latency=300ms, reset or hang (in "${line.trim()}").`,
  )
}

/** `x3`, `20%`; undefined for a word that is neither; an error for one that is out of range. */
function parseWhen(word: string): FaultWhen | FaultRuleError | undefined {
  const times = /^x(\d+)$/i.exec(word)
  if (times) {
    const count = Number(times[1])
    if (count < 1 || count > MAX_TIMES)
      return new FaultRuleError(`${word}: a count is from x1 to x${MAX_TIMES}`)
    return { kind: 'times', count }
  }
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(word)
  if (percent) {
    const value = Number(percent[1])
    if (!(value > 0 && value <= 100))
      return new FaultRuleError(`${word}: a chance is above 0% and at most 100%`)
    return { kind: 'percent', percent: value }
  }
  return undefined
}

export function effectText(effect: FaultEffect): string {
  switch (effect.kind) {
    case 'status':
      return String(effect.status)
    case 'latency':
      return `latency=${effect.ms % 1000 === 0 ? `${effect.ms / 1000}s` : `${effect.ms}ms`}`
    default:
      return webhookEffectText(effect)
  }
}

export function whenText(when: FaultWhen): string | undefined {
  if (when.kind === 'times') return `x${when.count}`
  if (when.kind === 'percent') return `${when.percent}%`
  return undefined
}

const WEBHOOK_GRAMMAR = { parseWhen, whenText, error: (message: string) => new FaultRuleError(message) }

function ruleText(rule: Omit<FaultRule, 'text'>): string {
  return [
    rule.method,
    `/${rule.segments.join('/')}`,
    effectText(rule.effect),
    whenText(rule.when),
    rule.after ? 'after' : undefined,
  ]
    .filter(Boolean)
    .join(' ')
}
