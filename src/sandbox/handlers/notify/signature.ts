/**
 * The hash of a notification, made and checked as the service's official shop plugins check it,
 * strictly (src/shared/webhook-check.ts: the one check of the sandbox, its library and `pay
 * webhooks verify`).
 */
export {
  hashOf,
  NOTIFICATION_KEYS,
  REQUIRED_KEYS,
  verifyWebhook,
  webhookProblem,
} from '../../../shared/webhook-check.js'
