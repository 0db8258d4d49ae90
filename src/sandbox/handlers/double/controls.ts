/**
 * The test double's controls (`/_sandbox/…`, not in docs/spec/), each a handler of the route table
 * (http/routes.ts): what `pay sandbox reset|seed|faults|requests|pay` and the library do through a
 * running server, each on the caller's business only. (The clock's are billing's:
 * handlers/billing/controls.ts; the notifications' notify's: handlers/notify/controls.ts.)
 */
import type { Outcome } from '../../constants.js'
import { invalid, Refusal, type Reply, success, valid } from '../../domain/answers.js'
import { sandboxNow } from '../../store/clock.js'
import type { ScopedContext } from '../context.js'
import { MAX_SEED } from './fault-sets.js'
import { type FaultRule, parseFaultRule } from './faults.js'
import { seedFixtures } from './fixtures.js'
import { RECORDED_PER_BUSINESS } from './recorded-requests.js'
import type { TestDouble } from './test-double.js'

/** The context of a control that acts on the server's test double. */
type DoubleContext = ScopedContext & { double: TestDouble }

/** The longest a `GET /_sandbox/requests?wait=` holds its answer. */
const MAX_WAIT_SECONDS = 30

/** `POST /_sandbox/reset`: the caller's records deleted (every other business's stay); no local path in the answer. */
export function resetBusiness({ store, caller }: ScopedContext): Reply {
  store.empty(caller)
  return success({ reset: true, business_id: caller.businessId }, sandboxNow(store))
}

/**
 * `POST /_sandbox/seed[?once=true]`: the caller's business seeded with the fixtures sent, all or
 * nothing: `{ids, records}`; `once` skips the names seeded before.
 */
export function seed({ store, caller, body, query, checkoutOrigin, now }: ScopedContext): Reply {
  const once = query.get('once')
  if (once !== null && !['true', 'false', '1', '0'].includes(once)) {
    throw invalid({ once: ['The once field must be true or false.'] })
  }
  const seeded = valid(
    seedFixtures(store, caller, body, { once: once === 'true' || once === '1', origin: checkoutOrigin }),
  )
  return success(seeded, now)
}

/** `GET /_sandbox/faults`: the caller's rules, with what each did so far. */
export const listFaults = ({ double, caller, now }: DoubleContext): Reply =>
  success(double.faults.list(caller.businessId), now)

/** `POST /_sandbox/faults` `{"rules": [RULE, …], "seed"?: N}`: the caller's rules replaced; 422 naming a rule that cannot be read. */
export function setFaults({ double, caller, body, now }: DoubleContext): Reply {
  const errors: Record<string, string[]> = {}
  const { rules, seed } = body as { rules?: unknown; seed?: unknown }
  let parsed: FaultRule[] = []
  if (!Array.isArray(rules) || rules.some((rule) => typeof rule !== 'string')) {
    errors.rules = [
      'The rules field must be an array of rules, each a string: METHOD PATH EFFECT [xN|P%] [after].',
    ]
  } else {
    const messages: string[] = []
    parsed = rules.flatMap((rule: string, i) => {
      try {
        return [parseFaultRule(rule)]
      } catch (error) {
        messages.push(`Rule ${i + 1}: ${(error as Error).message}`)
        return []
      }
    })
    if (messages.length > 0) errors.rules = messages
  }
  if (
    seed !== undefined &&
    !(Number.isInteger(seed) && (seed as number) >= 0 && (seed as number) <= MAX_SEED)
  ) {
    errors.seed = [`The seed must be an integer from 0 to ${MAX_SEED}.`]
  }
  if (Object.keys(errors).length > 0) throw invalid(errors)
  double.faults.set(caller.businessId, parsed, seed as number | undefined)
  return success(double.faults.list(caller.businessId), now)
}

/** `DELETE /_sandbox/faults`: no rule left for the caller. */
export function clearFaults({ double, caller, now }: DoubleContext): Reply {
  double.faults.set(caller.businessId, [])
  return success(double.faults.list(caller.businessId), now)
}

/**
 * `GET /_sandbox/requests?after=SEQ&limit=N&wait=SECONDS`: the caller's recorded requests, newest
 * last; `wait` holds an empty answer until one comes.
 */
export async function listRequests({ double, caller, query, now }: DoubleContext): Promise<Reply> {
  const errors: Record<string, string[]> = {}
  const number = (name: string, min: number, max: number, integer = true) => {
    const text = query.get(name)
    if (text === null) return undefined
    const value = Number(text)
    if (!/^\d+(\.\d+)?$/.test(text) || (integer && !Number.isInteger(value)) || value < min || value > max) {
      errors[name] = [`The ${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}.`]
    }
    return value
  }
  const after = number('after', 0, Number.MAX_SAFE_INTEGER)
  const limit = number('limit', 1, RECORDED_PER_BUSINESS)
  const wait = number('wait', 0, MAX_WAIT_SECONDS, false)
  if (Object.keys(errors).length > 0) throw invalid(errors)
  const business = caller.businessId
  // Waiting without a cursor waits for what comes next.
  const from = after ?? (wait ? double.recorded.last(business) : undefined)
  if (wait && from !== undefined) await double.recorded.wait(business, from, wait * 1000, double.stopped)
  return success(double.recorded.read(business, { after: from, limit }), now)
}

/** The customer's outcome on the caller's link: the link, and where the customer would be sent. */
function settle({ payments, caller, id, now }: ScopedContext, outcome: Outcome): Reply {
  const settled = payments.settle(id, outcome, caller)
  if (!settled) throw new Refusal(404, 'Payment link not found.')
  const reply = success(settled.link, now)
  return {
    ...reply,
    body: { ...(reply.body as object), outcome: settled.outcome, redirect_to: settled.redirect_to },
  }
}

/** `POST /_sandbox/payment-links/{id}/pay`: the customer pays. */
export const payLink = (context: ScopedContext) => settle(context, 'paid')

/** `POST /_sandbox/payment-links/{id}/pending`: the payment is left pending (told with status 2); the link stays unpaid. */
export const pendingLink = (context: ScopedContext) => settle(context, 'pending')

/** `POST /_sandbox/payment-links/{id}/cancel`: the customer cancels; the link stays unpaid. */
export const cancelLink = (context: ScopedContext) => settle(context, 'cancelled')

/** `POST /_sandbox/payment-links/{id}/fail`: the payment fails; the link stays unpaid. */
export const failLink = (context: ScopedContext) => settle(context, 'failed')
