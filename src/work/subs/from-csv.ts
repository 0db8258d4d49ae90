import type { PayApi } from '../../api/client.js'
import { type CsvCreation, createFromCsvFile, type FromCsvOptions } from '../../bulk/create.js'
import type { RowFields, RowValues } from '../../bulk/create-rows.js'
import type { BulkOutcome } from '../../render/bulk-rows.js'
import type { View } from '../../render/views.js'
import type { RunContext } from '../../runtime/context.js'
import { plain } from '../../values.js'
import { SUBSCRIPTION_FIELDS } from './fields.js'
import { SUBSCRIPTION_VIEW } from './view.js'

/**
 * `subs create --from-csv FILE`: a subscription per row of a spreadsheet, through the bulk create
 * engine that `links create --from-csv` uses (src/bulk/create.ts), with the fields of `subs
 * create`: package_id (or package-id), email, phone (or phone_no).
 */

/** The fields of a row, as the engine reads them: the columns of SUBSCRIPTION_FIELDS, checked as the service would. */
export const SUBSCRIPTION_ROWS: RowFields = {
  columnNames: SUBSCRIPTION_FIELDS.columnNames,
  fieldOfColumn: (column) => SUBSCRIPTION_FIELDS.fieldOfColumn(column),
  isBoolean: (field) => SUBSCRIPTION_FIELDS.isBoolean(field),
  checked: (values: RowValues) => {
    const sent = SUBSCRIPTION_FIELDS.normalized(values)
    return { values: sent, problems: SUBSCRIPTION_FIELDS.problems(sent, true) }
  },
}

/** The result of each row of `subs create --from-csv`. */
export const SUBSCRIPTION_ROW_VIEW: View = {
  noun: 'new subscription',
  plural: 'new subscriptions',
  listColumns: ['line', 'status', '_id', 'error'],
  recordFields: ['line', 'ok', 'status', '_id', 'error', 'idempotency_key'],
  dropOrder: ['error'],
}

/** One line of the plan: e-mail · package ID · phone (not yet sanitised). */
const describeRow = (values: RowValues) =>
  [plain(values.email), `package ${plain(values.package_id)}`, plain(values.phone_no)]
    .filter((part) => part !== '')
    .join(' · ')

/** What `subs create --from-csv` hands the bulk create engine: its fields, words and request. */
export const subscriptionCreation = (api: PayApi): CsvCreation => ({
  command: 'pay subs create --from-csv',
  view: SUBSCRIPTION_VIEW,
  rowsView: SUBSCRIPTION_ROW_VIEW,
  fields: SUBSCRIPTION_ROWS,
  describe: describeRow,
  madeColumns: [],
  rowColumns: ['email', 'package_id', 'phone_no'],
  create: (values, idempotencyKey) =>
    api.send('createSubscription', { body: SUBSCRIPTION_FIELDS.body(values), idempotencyKey }),
  listCommand: 'pay subs list',
})

/** `subs create --from-csv FILE` (- for stdin): plan, progress, report, resume, an Idempotency-Key per row. */
export const createSubscriptionsFromCsvFile = (
  options: FromCsvOptions,
  context: RunContext,
): Promise<BulkOutcome> => createFromCsvFile(subscriptionCreation, options, context)
