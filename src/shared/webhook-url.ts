/**
 * What a webhook endpoint may be, one rule wherever a URL to notify is taken (the sandbox's
 * `/_sandbox/webhooks` and its integration endpoints, `sandbox start --webhook`, `webhooks add`,
 * `sandbox listen --forward-to`, the library): an http or https URL with a host, and no user name
 * or password. A notification carries no Authorization (its hash is the proof): credentials in
 * the URL would be sent as Basic auth, and shown wherever the endpoint is listed.
 */

/** Why a URL cannot be a webhook endpoint. */
export type WebhookUrlProblem = 'not-http' | 'credentials'

/** Why `text` cannot be a webhook endpoint; undefined when it can. */
export function webhookUrlProblem(text: unknown): WebhookUrlProblem | undefined {
  if (typeof text !== 'string') return 'not-http'
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'not-http'
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return 'not-http'
  if (url.username !== '' || url.password !== '') return 'credentials'
  return undefined
}

/** Whether `text` can be a webhook endpoint. */
export const isWebhookUrl = (text: unknown): boolean => webhookUrlProblem(text) === undefined

/** What a URL with credentials is told, wherever it is refused. */
export const NO_CREDENTIALS = 'may not hold a user name or password: a notification carries no Authorization'
