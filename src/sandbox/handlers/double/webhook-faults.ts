/**
 * Fault rules for the sandbox's notifications (handlers/notify/), so that an app's webhook handler meets
 * what a real service's deliveries do: `WEBHOOK EVENT EFFECT [xN|P%]`, where
 * - EVENT is `payment.created` (the one event the service sends);
 * - EFFECT is `duplicate` (the notification is delivered twice, the same body byte for byte),
 *   `delay DURATION` (its first attempt waits: `delay 5s`, `delay 500ms`, at most ten minutes) or
 *   `drop` (it is never sent: its delivery fails at once, saying so);
 * - `xN` and `P%` as in every rule (faults.ts); `after` means nothing here and is refused.
 *
 * The rule is read here and kept among the business's other rules (faults.ts): the same counters,
 * the same seeded draws, the same `pay sandbox faults list`. A request is never matched by a
 * WEBHOOK rule, nor a notification by a request's rule. This module imports nothing of faults.ts
 * (which imports it): what it needs of the grammar is handed to it.
 */
import { parseDuration } from '../../../shared/duration.js'
import { WEBHOOK_EVENTS } from '../notify/notification.js'
import type { DeliveryEffect } from '../notify/outbox.js'

export const WEBHOOK_METHOD = 'WEBHOOK'

/** What a WEBHOOK rule does to a notification: notify carries it out (handlers/notify/outbox.ts). */
export type WebhookEffect = DeliveryEffect

/** Whether a rule's effect is one of a notification's (only WEBHOOK rules match a notification). */
export const isWebhookEffect = (effect: { kind: string }): effect is WebhookEffect =>
  effect.kind === 'duplicate' || effect.kind === 'delay' || effect.kind === 'drop'

/** The longest delay a rule may give: ten minutes, as a request's latency. */
const MAX_DELAY_MS = 600_000

/** How a WEBHOOK rule is matched: the method of faults.ts's rules, and its event as a path. */
export const webhookPath = (event: string) => `/${event}`

/** An effect as a rule writes it: `delay 5s`; another effect (of a request's rule too) by its kind. */
export function webhookEffectText(effect: WebhookEffect | { kind: 'reset' | 'hang' }): string {
  if (effect.kind !== 'delay') return effect.kind
  return `delay ${effect.ms % 1000 === 0 ? `${effect.ms / 1000}s` : `${effect.ms}ms`}`
}

/** The grammar's parts faults.ts lends: its reading of `xN`/`P%`, and its error. */
export interface Grammar<When> {
  parseWhen(word: string): When | Error | undefined
  whenText(when: When): string | undefined
  error(message: string): Error
}

/** `WEBHOOK payment.created delay 5s x2`, read into a rule of faults.ts's shape; `grammar.error` when it cannot be. */
export function parseWebhookRule<When extends { kind: string }>(line: string, grammar: Grammar<When>) {
  const written = line.trim()
  const fail = (what: string) => grammar.error(`${what} (in "${written}")`)
  const [, event, effectWord, ...rest] = written.split(/\s+/)
  const forms = 'duplicate, delay DURATION (delay 5s) or drop'
  if (event === undefined || effectWord === undefined) {
    throw fail(`A notification's fault rule is WEBHOOK EVENT EFFECT [xN|P%], EFFECT one of ${forms}`)
  }
  if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) {
    throw fail(`"${event}" is not an event the sandbox notifies: give ${WEBHOOK_EVENTS.join(', ')}`)
  }
  let effect: WebhookEffect
  const kind = effectWord.toLowerCase()
  if (kind === 'duplicate' || kind === 'drop') effect = { kind }
  else if (kind === 'delay') effect = { kind, ms: delayOf(rest.shift(), fail) }
  else throw fail(`"${effectWord}" is not an effect of a notification: give ${forms}`)
  let when: When = { kind: 'every' } as When
  for (const [i, word] of rest.entries()) {
    const parsed = i === 0 ? grammar.parseWhen(word) : undefined
    if (parsed instanceof Error) throw fail(parsed.message)
    if (parsed === undefined) {
      const after = word.toLowerCase() === 'after' ? ': a notification has no answer to lose' : ''
      throw fail(`"${word}" is not understood${after}; after the effect comes xN or P%, at most once`)
    }
    when = parsed
  }
  const text = [WEBHOOK_METHOD, event, webhookEffectText(effect), grammar.whenText(when)]
    .filter(Boolean)
    .join(' ')
  return { text, method: WEBHOOK_METHOD, segments: [event], effect, when, after: false }
}

function delayOf(word: string | undefined, fail: (what: string) => Error): number {
  const ms = /^\d+ms$/i.test(word ?? '') ? Number(word?.slice(0, -2)) : parseDuration(word ?? '')?.ms
  const months = word === undefined ? 0 : (parseDuration(word)?.months ?? 0)
  if (ms === undefined || months > 0 || ms < 1 || ms > MAX_DELAY_MS) {
    throw fail(
      `"delay ${word ?? ''}" needs a duration from 1ms to 10 minutes: delay 5s, delay 500ms, delay 2m`,
    )
  }
  return ms
}
