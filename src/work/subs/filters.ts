import { allOf, CREATED_OPTIONS, canonicalStatus, createdWithin, matchesAll } from '../common/filters.js'
import type { OptionSpecs, OptionValues } from '../common/options.js'
import { SUBSCRIPTION_STATUSES } from './fields.js'

/** The client-side filters of `subs list` (its flags, and `pay mcp`'s subs_list arguments). */
export const SUBSCRIPTION_FILTERS = {
  status: {
    kind: 'text',
    description: 'Only subscriptions with this status: created, cancel (or cancelled); any case.',
  },
  email: { kind: 'text', description: 'Only subscriptions of this customer e-mail; any case.' },
  ...CREATED_OPTIONS,
  unpaid: {
    kind: 'boolean',
    description:
      'Only subscriptions with at least one unpaid charge (a payment_links entry with paid false).',
  },
  overdue: {
    kind: 'duration',
    description:
      "Only subscriptions with a charge unpaid for longer than DURATION (30d, 2w, 1mo), measured by the service's " +
      "clock (its answers' meta.timestamp), not this machine's.",
  },
} as const satisfies OptionSpecs

/** The filters of `subs list`, as its flags name them (`pay mcp` gives the same). */
export type SubscriptionFilters = OptionValues<typeof SUBSCRIPTION_FILTERS>

/** The filter the flags describe (`now` for a span such as 7d); undefined when none was given. */
export function subscriptionFilter(
  flags: { status?: string; email?: string; 'created-after'?: string; 'created-before'?: string },
  now = Date.now(),
) {
  const fields = matchesAll([
    { field: 'status', value: canonicalStatus(flags.status, SUBSCRIPTION_STATUSES) },
    { field: 'email', value: flags.email },
  ])
  return allOf(fields, createdWithin(flags, now))
}
