import type { PayApi } from '../../api/client.js'
import { type CsvCreation, createFromCsvFile, type FromCsvOptions } from '../../bulk/create.js'
import type { BulkOutcome } from '../../render/bulk-rows.js'
import type { RunContext } from '../../runtime/context.js'
import { LINK_ROWS } from './csv-rows.js'
import { LINK_FIELDS } from './fields.js'
import { CREATE_RESULT_VIEW, describeLink, LINK_VIEW } from './view.js'

/** What `links create --from-csv` hands the bulk create engine (src/bulk/create.ts): its fields, words and request. */
export const linkCreation = (api: PayApi): CsvCreation => ({
  command: 'pay links create --from-csv',
  view: LINK_VIEW,
  rowsView: CREATE_RESULT_VIEW,
  fields: LINK_ROWS,
  describe: describeLink,
  madeColumns: ['payment_url'],
  rowColumns: ['email', 'title', 'amount', 'currency'],
  create: (values, idempotencyKey) =>
    api.send('createLink', { body: LINK_FIELDS.body(values), idempotencyKey }),
  listCommand: 'pay links list',
})

/** `links create --from-csv FILE` (- for stdin): the bulk create of src/bulk/create.ts, of links. */
export const createLinksFromCsvFile = (options: FromCsvOptions, context: RunContext): Promise<BulkOutcome> =>
  createFromCsvFile(linkCreation, options, context)
