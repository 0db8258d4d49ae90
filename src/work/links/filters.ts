import {
  allOf,
  CREATED_OPTIONS,
  canonicalStatus,
  containsText,
  createdWithin,
  matchesAll,
  type Statuses,
} from '../common/filters.js'
import type { OptionSpecs, OptionValues } from '../common/options.js'

/** Link statuses (docs/spec/payment-service-api.md 3 states only Active). */
const LINK_STATUSES: Statuses = { known: ['Active'], aliases: {} }

/** The client-side filters of `links list` (its flags, and `pay mcp`'s links_list arguments). */
export const LINK_FILTERS = {
  status: { kind: 'text', description: 'Only links with this status (Active); any case.' },
  paid: { kind: 'boolean', description: 'Only paid links (--no-paid: only unpaid).', allowNo: true },
  email: { kind: 'text', description: 'Only links for this customer e-mail; any case.' },
  reference: { kind: 'text', description: 'Only links with this reference; any case.' },
  search: {
    kind: 'text',
    description:
      'Only links with this text in the title, description, e-mail or references; any case, accents or not.',
    helpValue: 'TEXT',
  },
  ...CREATED_OPTIONS,
} as const satisfies OptionSpecs

/** The filters of `links list`, as its flags name them (`pay mcp` gives the same). */
export type LinkFilters = OptionValues<typeof LINK_FILTERS>

/** The fields --search looks in. */
const SEARCHED = ['title', 'description', 'email', 'reference', 'reference_2']

/** The filter the flags describe (`now` for a span such as 7d); undefined when none was given. */
export function linkFilter(flags: LinkFilters, now = Date.now()) {
  const fields = matchesAll([
    { field: 'status', value: canonicalStatus(flags.status, LINK_STATUSES) },
    { field: 'paid', value: flags.paid },
    { field: 'email', value: flags.email },
    { field: 'reference', value: flags.reference },
  ])
  return allOf(fields, containsText(SEARCHED, flags.search), createdWithin(flags, now))
}
