/**
 * `pay webhooks list|add|enable|disable|remove` (and `pay mcp`'s webhooks_* tools): the webhook
 * events of the profile's integration, as the service's shop plugins set them (docs/choices.md):
 * `payment.created` to a URL, enabled or not. Through the account's endpoints, with the access
 * token of `pay login --email`.
 */
import { confirmPlan } from '../../bulk/consent.js'
import { PayError, validationError } from '../../errors.js'
import type { RunContext } from '../../runtime/context.js'
import { plain, type Rec } from '../../values.js'
import { accountSend } from './send.js'
import { describeWebhookEvent } from './view.js'

/** The one event the service notifies: a payment attempt. */
export const PAYMENT_CREATED = 'payment.created'

/** The longest URL the service takes. */
const MAX_URL_LENGTH = 2048

/** The integration's webhook events. */
export async function listWebhookEvents(context: Pick<RunContext, 'account'>): Promise<Rec[]> {
  return (await accountSend('listWebhookEvents', {}, context)).answer
}

/** A URL the service takes (checked before sending, as it checks it: exit 3 under --url otherwise). */
function checkUrl(url: string): void {
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {}
  const web =
    parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== ''
  if (!web || url.length > MAX_URL_LENGTH) throw validationError({ url: ['The url format is invalid.'] })
}

/** `webhooks add URL`: a `payment.created` event to `url`, enabled (the one of that URL, if there is one). */
export async function addWebhookEvent(
  { url }: { url: string },
  context: Pick<RunContext, 'account'>,
): Promise<Rec> {
  checkUrl(url)
  const body = { name: PAYMENT_CREATED, url, enabled: true }
  return (await accountSend('addWebhookEvent', { body }, context)).answer
}

/** `webhooks enable|disable ID`: the event after. */
export async function setWebhookEnabled(
  { id, enabled }: { id: string; enabled: boolean },
  context: Pick<RunContext, 'account'>,
): Promise<Rec> {
  return (await accountSend('updateWebhookEvent', { id, body: { enabled } }, context).catch(noSuch(id)))
    .answer
}

/** What `webhooks remove` came to: the event removed, or nothing (--dry-run). */
export interface WebhookRemoved {
  id: string
  event?: Rec
  removed: boolean
}

/**
 * `webhooks remove ID`: the event found, shown, confirmed (a terminal asks; --yes; off a terminal
 * without --yes nothing is sent: exit 2; --dry-run stops there), then removed.
 */
export async function removeWebhookEvent(
  { id }: { id: string },
  context: RunContext,
): Promise<WebhookRemoved> {
  const events = await listWebhookEvents(context)
  const event = events.find((one) => one._id === id)
  if (!event) throw noSuchEvent(id)
  const { target } = await context.account()
  const plan = {
    action: 'remove',
    done: 'removed',
    noun: 'webhook event',
    plural: 'webhook events',
    ids: [id],
    target,
    details: [`  ${plain(event._id)}  ${describeWebhookEvent(event)}`],
  }
  if (!(await confirmPlan(plan, context.consent, context.out, context.io)))
    return { id, event, removed: false }
  await accountSend('removeWebhookEvent', { id }, context).catch(noSuch(id))
  return { id, event, removed: true }
}

const noSuchEvent = (id: string) =>
  new PayError(`The integration has no webhook event ${id}.`, {
    kind: 'not_found',
    status: 404,
    hint: 'See `pay webhooks list`.',
  })

/** A 404 said with the event looked for; other errors as they are. */
const noSuch = (id: string) => (error: unknown) => {
  throw error instanceof PayError && error.kind === 'not_found' ? noSuchEvent(id) : error
}
