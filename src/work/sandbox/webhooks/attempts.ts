/**
 * The customer's payment attempts on one link, heard on the sandbox (`pay links wait`): the link
 * record says only whether it is paid, so what else an attempt came to is learnt as the service
 * tells shops, from its notification. A receiver of this process (receiver.ts) is an endpoint of
 * the key's business while the wait lasts; each notification is checked against the business's
 * signature key, and those of the link are told to the wait (runtime/wait.ts, News) by their
 * `payment_status`, as the service's plugins read it: 1 paid (look now), 2 pending (said, and
 * waited through), anything else failed (the wait ends).
 */
import type { PayApi } from '../../../api/client.js'
import type { News } from '../../../runtime/wait.js'
import { verifyWebhook } from '../../../shared/webhook-signature.js'
import { isRecord, plain, type Rec } from '../../../values.js'
import { sandboxWebhooks } from '../controls.js'
import { receiveNotifications } from './receiver.js'

const PAID = 1
const PENDING = 2

export interface HeardAttempts {
  /** Tells `tell` what is heard from now on (what was heard before is told at once). */
  hear(tell: (news: News) => void): void
  /** The notification's `data` of the failed attempt that ended the wait, once one was heard. */
  failed(): Rec | undefined
  /** Stops hearing: the endpoint removed, unless `left` (the sandbox is gone: its lease ends it). */
  end(options?: { left?: boolean }): Promise<void>
}

/** Hears the attempts on link `linkId` through the sandbox of `api` until `end()`. */
export async function hearAttempts(api: PayApi, linkId: string): Promise<HeardAttempts> {
  const { signature_key: key } = await sandboxWebhooks(api)
  let tell: ((news: News) => void) | undefined
  const early: News[] = []
  const say = (news: News) => (tell ? tell(news) : early.push(news))
  const pending = new Set<string>()
  let failed: Rec | undefined
  const receiver = await receiveNotifications(api, 'links-wait', async (body) => {
    // Anything on this machine can reach the port: only what the signature key signed is heard.
    if (!verifyWebhook(body, key)) return 401
    const notification = JSON.parse(body) as Rec
    const data = isRecord(notification.data) ? notification.data : {}
    if (data.payment_link_id !== linkId) return 200
    const message = plain(data.payment_message)
    if (data.payment_status === PAID) say({ kind: 'look' })
    else if (data.payment_status === PENDING) {
      const attempt = plain(data.attempt_id)
      if (!pending.has(attempt)) {
        pending.add(attempt)
        const why = message ? ` (${message})` : ''
        say({
          kind: 'state',
          short: 'attempt pending',
          line: `The customer's payment is pending${why}; still waiting.`,
        })
      }
    } else {
      failed ??= data
      say({ kind: 'end' })
    }
    return 200
  })
  return {
    hear(given) {
      tell = given
      for (const news of early.splice(0)) given(news)
    },
    failed: () => failed,
    end: (options) => receiver.close(options),
  }
}
