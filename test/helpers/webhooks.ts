import { expect } from 'vitest'
import type { TestSandbox } from './sandbox.js'
import { VALID_LINK } from './sandbox.js'

/** What the notification tests share: a link paid through a sandbox, its endpoints and deliveries as it holds them. */

/** A link of the sandbox's first business, paid through its control route (which notifies). */
export async function payNewLink(sandbox: TestSandbox, fields: Record<string, unknown> = {}) {
  const link = (await sandbox.request('POST', '/payment-links', { ...VALID_LINK, ...fields })).body.data
  expect((await sandbox.request('POST', `/_sandbox/payment-links/${link._id}/pay`)).status).toBe(200)
  return link as { _id: string }
}

/** Adds an endpoint of the first business through the sandbox's route; its record. */
export async function addEndpoint(sandbox: TestSandbox, url: string, more: Record<string, unknown> = {}) {
  const added = await sandbox.request('POST', '/_sandbox/webhooks', { url, ...more })
  expect(added.status).toBe(200)
  return added.body.data as { _id: string; url: string }
}

/** `{signature_key, endpoints}` of the first business. */
export const webhooksOf = async (sandbox: TestSandbox) =>
  (await sandbox.request('GET', '/_sandbox/webhooks')).body.data

/** The deliveries of the first business, newest last. */
export const deliveriesOf = async (sandbox: TestSandbox) =>
  (await sandbox.request('GET', '/_sandbox/webhooks/deliveries')).body.data
