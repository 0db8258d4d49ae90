import type { BulkOutcome } from '../render/bulk-rows.js'
import type { RunContext } from '../runtime/context.js'
import { isRecord, type Rec } from '../values.js'
import type { FieldValues } from '../work/common/field-set.js'
import type { RecordWalk } from '../work/common/list-walk.js'
import type { OptionSpecs } from '../work/common/options.js'
import { createLink } from '../work/links/create.js'
import { deleteLinks } from '../work/links/delete.js'
import { LINK_FIELDS } from '../work/links/fields.js'
import { LINK_FILTERS } from '../work/links/filters.js'
import { showLink } from '../work/links/get.js'
import { listLinks } from '../work/links/list.js'
import { updateLink } from '../work/links/update.js'
import { cancelMany } from '../work/subs/cancel.js'
import { createSubscription } from '../work/subs/create.js'
import { deleteSubscriptions } from '../work/subs/delete.js'
import { SUBSCRIPTION_CHANGE_FIELDS, SUBSCRIPTION_FIELDS } from '../work/subs/fields.js'
import { SUBSCRIPTION_FILTERS } from '../work/subs/filters.js'
import { showSubscription } from '../work/subs/get.js'
import { listSubscriptions } from '../work/subs/list.js'
import { updateSubscription } from '../work/subs/update.js'
import { createToken, TOKEN_FIELDS } from '../work/token/create.js'

/**
 * The plain functions each resource's tools call: the very ones its commands call (src/work),
 * given the fields under the API's names and a run context of the tool call, and answering the
 * same data. A tool whose endpoint has none here is served by the endpoint's declaration alone
 * (tools.ts).
 */

/** How many requests a delete or cancel keeps in flight, as the commands do by default. */
const CONCURRENCY = 4

/** The fields of a request body: their help (for the schemas), and values made as flags make them (`usd` → `USD`). */
interface Fields {
  describe(field: string): string | undefined
  normalized(values: FieldValues): FieldValues
}

export interface ResourceRuns {
  /**
   * What a plan and a tool's text say of a record: the fields a person checks before it is
   * deleted or cancelled (results.ts writes them in one line, the service's text quoted).
   */
  summary(record: Rec): Rec
  /** The amount a record stands for (what --max-amount caps). */
  amountOf(record: Rec): { amount: unknown; currency: unknown }
  /** The list's filters, as its work declares them (each parsed by parseOptions). */
  filters: OptionSpecs
  list(filters: Record<string, unknown>, context: RunContext): Promise<RecordWalk>
  get(id: string, context: RunContext): Promise<Rec>
  /** Per verb of the endpoint (create, update): its body's fields and the run function. */
  create?: {
    fields: Fields
    run(fields: FieldValues, idempotencyKey: string | undefined, context: RunContext): Promise<Rec>
  }
  update?: { fields: Fields; run(id: string, changes: FieldValues, context: RunContext): Promise<Rec> }
  /** Per verb of what acts on ids (delete, cancel): the bulk run function. */
  act: Record<string, (ids: string[], context: RunContext) => Promise<BulkOutcome>>
}

const linkRuns: ResourceRuns = {
  summary: (link) => ({
    id: link._id,
    title: link.title,
    amount: link.amount,
    currency: link.currency,
    status: link.status,
    paid: link.paid,
    email: link.email,
  }),
  amountOf: (link) => ({ amount: link.amount, currency: link.currency }),
  filters: LINK_FILTERS,
  list: (filters, context) => listLinks(filters, context),
  get: (id, context) => showLink({ id }, context),
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
  summary: (subscription) => {
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
  filters: SUBSCRIPTION_FILTERS,
  list: (filters, context) => listSubscriptions(filters, context),
  get: async (id, context) => (await showSubscription({ id }, context)).subscription,
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

/** What a plan and a tool's text say of a record of a resource without runs: the fields it has of these. */
export function summaryOfAny(record: Rec): Rec {
  const fields = ['title', 'name', 'email', 'url', 'amount', 'currency', 'status', 'paid']
  return {
    id: record._id,
    ...Object.fromEntries(fields.filter((field) => record[field] !== undefined).map((f) => [f, record[f]])),
  }
}

/** The amount a record of a resource without runs stands for: its own amount and currency. */
export const amountOfAny = (record: Rec) => ({ amount: record.amount, currency: record.currency })

/**
 * What the confirm of a plan reads again and compares: whether the record is paid, its status,
 * its amount and currency (as --max-amount counts them), and when it last changed. Any
 * difference, or a record gone, and nothing is done (act.ts).
 */
export function watched(record: Rec, amountOf: (record: Rec) => { amount: unknown; currency: unknown }): Rec {
  const { amount, currency } = amountOf(record)
  return {
    paid: record.paid ?? null,
    status: record.status ?? null,
    amount: amount ?? null,
    currency: currency ?? null,
    updated_at: record.updated_at ?? null,
  }
}
