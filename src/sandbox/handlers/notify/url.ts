/**
 * What a webhook endpoint may be: the one rule of src/shared/webhook-url.ts (an http or https URL
 * with a host, no user name or password). Nothing else is ever sent a notification.
 */
export { isWebhookUrl, NO_CREDENTIALS, webhookUrlProblem } from '../../../shared/webhook-url.js'
