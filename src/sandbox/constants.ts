/** The well-known key of the sandbox's default business. It unlocks nothing but the local sandbox. */
export const SANDBOX_KEY = 'sk_sandbox_4f3c9a1b7e2d5f8a0c6b9e1d'

export const DEFAULT_SANDBOX_PORT = 4010

/** The largest JSON body a request may carry (413 past it): `pay sandbox seed` checks it before sending. */
export const MAX_BODY_BYTES = 1024 * 1024

/** What the customer may do on a payment page in test mode (domain/payment.ts). */
export const OUTCOMES = ['paid', 'pending', 'cancelled', 'failed'] as const
export type Outcome = (typeof OUTCOMES)[number]
