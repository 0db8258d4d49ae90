import type { Interfaces } from '@oclif/core'
import { formatAmount } from '../render/format.js'
import type { Result } from '../render/result.js'
import type { RunContext } from '../runtime/context.js'
import { ENDPOINTS } from '../shared/endpoints.js'
import { isRecord, plain, type Rec } from '../values.js'
import type { FieldValues } from '../work/common/field-set.js'
import { sendForRecord } from '../work/common/send.js'
import { describeLink, LINK_FIELDS, LINK_FILTER_FLAGS } from '../work/links/links.js'
import { createLink, deleteLinks, listLinks, updateLink } from '../work/links/runs.js'
import { CHARGE_FILTER_FLAGS } from '../work/subs/charges.js'
import {
  cancelMany,
  createSubscription,
  deleteSubscriptions,
  listSubscriptions,
  showSubscription,
  updateSubscription,
} from '../work/subs/runs.js'
import {
  describeSubscription,
  SUBSCRIPTION_CHANGE_FIELDS,
  SUBSCRIPTION_FIELDS,
  SUBSCRIPTION_FILTER_FLAGS,
} from '../work/subs/subscriptions.js'
import { createToken, TOKEN_FIELDS } from '../work/token/create.js'

/**
 * The plain functions each resource's tools call: the very ones its commands call
 * (src/work), given the fields under the API's names and a run context of the tool call.
 * A tool whose endpoint has none here is served by the endpoint's declaration alone (tools.ts).
 */

/** How many requests a delete or cancel keeps in flight, as the commands do by default. */
const CONCURRENCY = 4

type Flags = Interfaces.FlagInput

/** The fields of a request body: their help (for the schemas), and values made as flags make them (`usd` → `USD`). */
interface Fields {
  describe(field: string): string | undefined
  normalized(values: FieldValues): FieldValues
}

export interface ResourceRuns {
  /** A record in one line: title · amount · e-mail [status]. */
  describe(record: Rec): string
  /** What a plan says of a record: the fields a person checks before it is deleted or cancelled. */
  planItem(record: Rec): Rec
  /** The amount a record stands for (what --max-amount caps). */
  amountOf(record: Rec): { amount: unknown; currency: unknown }
  /** The list's filters, as the list command's flags declare them (each parsed as the flag parses it). */
  filters: Flags
  list(filters: Record<string, unknown>, context: RunContext): Promise<Result>
  get(id: string, context: RunContext): Promise<Result>
  /** Per verb of the endpoint (create, update): its body's fields and the run function. */
  create?: {
    fields: Fields
    run(fields: FieldValues, idempotencyKey: string | undefined, context: RunContext): Promise<Result>
  }
  update?: { fields: Fields; run(id: string, changes: FieldValues, context: RunContext): Promise<Result> }
  /** Per verb of what acts on ids (delete, cancel): the bulk run function. */
  act: Record<string, (ids: string[], context: RunContext) => Promise<Result>>
}

const linkRuns: ResourceRuns = {
  describe: describeLink,
  planItem: (link) => ({
    id: link._id,
    title: link.title,
    amount: link.amount,
    currency: link.currency,
    status: link.status,
    paid: link.paid,
    email: link.email,
  }),
  amountOf: (link) => ({ amount: link.amount, currency: link.currency }),
  filters: LINK_FILTER_FLAGS,
  list: (filters, context) => listLinks(filters, context),
  get: (id, context) => sendForRecord(ENDPOINTS.getLink, { id }, context),
  create: {
    fields: LINK_FIELDS,
    run: (fields, idempotencyKey, context) =>
      createLink({ fields: LINK_FIELDS.normalized(fields), idempotencyKey }, context),
  },
  update: {
    fields: LINK_FIELDS,
    run: (id, changes, context) => updateLink({ id, changes: LINK_FIELDS.normalized(changes) }, context),
  },
  act: { delete: (ids, context) => deleteLinks({ ids, concurrency: CONCURRENCY }, context) },
}

const packageOf = (subscription: Rec): Rec => (isRecord(subscription.package) ? subscription.package : {})

const subscriptionRuns: ResourceRuns = {
  describe: describeSubscription,
  planItem: (subscription) => {
    const pkg = packageOf(subscription)
    return {
      id: subscription._id,
      email: subscription.email,
      status: subscription.status,
      package: pkg.name,
      amount: pkg.amount,
      currency: pkg.currency,
      frequency: pkg.frequency,
    }
  },
  amountOf: (subscription) => ({
    amount: packageOf(subscription).amount,
    currency: packageOf(subscription).currency,
  }),
  filters: { ...SUBSCRIPTION_FILTER_FLAGS, ...CHARGE_FILTER_FLAGS },
  list: (filters, context) => listSubscriptions(filters, context),
  get: (id, context) => showSubscription({ id }, context),
  create: {
    fields: SUBSCRIPTION_FIELDS,
    run: (fields, idempotencyKey, context) =>
      createSubscription({ fields: SUBSCRIPTION_FIELDS.normalized(fields), idempotencyKey }, context),
  },
  update: {
    fields: SUBSCRIPTION_CHANGE_FIELDS,
    run: (id, changes, context) =>
      updateSubscription({ id, changes: SUBSCRIPTION_CHANGE_FIELDS.normalized(changes) }, context),
  },
  act: {
    cancel: (ids, context) => cancelMany({ ids, concurrency: CONCURRENCY }, context),
    delete: (ids, context) => deleteSubscriptions({ ids, concurrency: CONCURRENCY }, context),
  },
}

/** A token is only ever created. */
const tokenRuns: Pick<ResourceRuns, 'create'> = {
  create: {
    fields: TOKEN_FIELDS,
    run: (fields, idempotencyKey, context) =>
      createToken({ fields: TOKEN_FIELDS.normalized(fields), idempotencyKey }, context),
  },
}

/** The runs of each resource, by the noun its endpoints declare. */
export const RUNS: Record<string, Partial<ResourceRuns>> = {
  'payment link': linkRuns,
  subscription: subscriptionRuns,
  token: tokenRuns,
}

/** A record in one line for a resource without runs: its title, amount and status, where it has them. */
export function describeAny(record: Rec): string {
  const amount = record.amount === undefined ? '' : formatAmount(record.amount, record.currency)
  return [plain(record.title), amount, plain(record.status)].filter(Boolean).join(' · ')
}
