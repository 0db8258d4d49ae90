/**
 * The sandbox's own controls as a test double (not in docs/spec/; issue 25): its fault rules, the
 * requests each business sent, and the customer's outcomes of a link. Each acts on the key's
 * business, through a running sandbox (`pay sandbox faults`, `requests`, `pay --outcome`).
 */
import { PayError } from '../errors.js'
import { isRecord, type Rec } from '../values.js'
import type { PayApi } from './client.js'
import { readPage, readRecord } from './reader.js'

/** `{seed, rules}` as `/_sandbox/faults` answers it. */
export interface FaultsAnswer {
  seed: number | undefined
  rules: Rec[]
}

function readFaults(body: unknown): FaultsAnswer {
  const data = readRecord(body, 'fault list')
  const rules = readPage({ data: data.rules }, 'fault rule').items
  return { seed: typeof data.seed === 'number' ? data.seed : undefined, rules }
}

/** The rules of the key's business, with what each did so far. */
export async function sandboxFaults(api: PayApi): Promise<FaultsAnswer> {
  return readFaults((await api.transport.send('GET', '/_sandbox/faults')).body)
}

/** Replaces the rules of the key's business (none: `clear`); `seed` for their P% draws. */
export function setSandboxFaults(api: PayApi, rules: string[], seed?: number): Promise<FaultsAnswer> {
  const path = '/_sandbox/faults'
  const clear = rules.length === 0 && seed === undefined
  return api.change({ method: clear ? 'DELETE' : 'POST', path, resource: 'sandbox faults' }, async () => {
    const response = clear
      ? await api.transport.send('DELETE', path)
      : await api.transport.send('POST', path, seed === undefined ? { rules } : { rules, seed })
    return { status: response.status, result: readFaults(response.body) }
  })
}

/** The requests the key's business sent, newest last: after `after` (a seq), the newest `limit`; `wait` seconds for one. */
export async function sandboxRequests(
  api: PayApi,
  options: { after?: number; limit?: number; wait?: number } = {},
): Promise<Rec[]> {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(options)) if (value !== undefined) query.set(name, String(value))
  const path = `/_sandbox/requests${query.size > 0 ? `?${query}` : ''}`
  return readPage((await api.transport.send('GET', path)).body, 'request').items
}

/** What the customer's action on a link came to: the link, and where the customer would be sent. */
export interface SettledAnswer {
  outcome: string
  link: Rec
  redirect_to: string | null
}

const VERBS: Record<string, string> = { paid: 'pay', cancelled: 'cancel', failed: 'fail' }

/**
 * The customer pays, cancels or fails link `linkId` (`pay sandbox pay --outcome`). A sandbox of
 * an older pay knows only paying: for another outcome it answers 404 for the route (`Not
 * found.`), said as such, and nothing is done.
 */
export function sandboxSettle(api: PayApi, linkId: string, outcome: string): Promise<SettledAnswer> {
  const path = `/_sandbox/payment-links/${encodeURIComponent(linkId)}/${VERBS[outcome]}`
  return api.change({ method: 'POST', path, resource: 'sandbox payment', id: linkId }, async () => {
    let response: Awaited<ReturnType<typeof api.transport.send>>
    try {
      response = await api.transport.send('POST', path, undefined)
    } catch (error) {
      if (error instanceof PayError && error.status === 404 && error.message === 'Not found.') {
        throw new PayError(
          `The sandbox at ${api.origin} cannot play the outcome "${outcome}": it runs an older pay.`,
          {
            kind: 'general',
            status: 404,
            hint: 'Restart it (`pay sandbox start`) with this pay.',
          },
        )
      }
      throw error
    }
    const body = response.body
    const link = readRecord(body, 'payment link')
    const said = isRecord(body) ? body : {}
    return {
      status: response.status,
      result: {
        outcome: typeof said.outcome === 'string' ? said.outcome : link.paid === true ? 'paid' : outcome,
        link,
        redirect_to: typeof said.redirect_to === 'string' ? said.redirect_to : null,
      },
    }
  })
}
