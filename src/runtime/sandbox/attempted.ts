import type { Attempted } from '../../sandbox/index.js'
import { sanitizeText } from '../../values.js'

/**
 * What came of the notifications a sandbox with no server attempted before the command ended
 * (an in-process sandbox, `sandbox pay` on the local store): delivered, failed for good, or
 * waiting in the outbox of `dir` for the next sandbox on it.
 */
export function attemptedText(attempted: Attempted[], dir: string): string[] {
  return attempted.map((attempt) => {
    const answer = attempt.status === null ? (attempt.error ?? 'no answer') : `answered ${attempt.status}`
    const head = `Notified ${attempt.url}: ${answer}`
    if (attempt.state === 'delivered') return sanitizeText(`${head}.`)
    if (attempt.state === 'failed')
      return sanitizeText(`${head}; no attempt is left (delivery ${attempt.id}).`)
    return sanitizeText(
      `${head}. Delivery ${attempt.id} waits in the outbox of ${dir} for the next sandbox on it ` +
        '(`pay sandbox start`), which retries it.',
    )
  })
}
