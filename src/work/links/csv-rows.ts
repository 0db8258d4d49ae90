import type { RowFields, RowValues } from '../../bulk/create-rows.js'
import type { FieldErrors, PayError } from '../../errors.js'
import { checkAmountDigits, LINK_FIELDS } from './fields.js'

/**
 * The fields of a `links create --from-csv` row, as the bulk create engine reads them
 * (src/bulk/create-rows.ts): the columns of LINK_FIELDS, each row checked as the service would
 * check it, its currency's decimals too.
 */
export const LINK_ROWS: RowFields = {
  columnNames: LINK_FIELDS.columnNames,
  fieldOfColumn: (column) => LINK_FIELDS.fieldOfColumn(column),
  isBoolean: (field) => LINK_FIELDS.isBoolean(field),
  checked: (values: RowValues) => {
    // Sent as flags are (`usd` as `USD`), so that one currency is not two in the service's totals.
    const sent = LINK_FIELDS.normalized(values)
    const problems: FieldErrors = LINK_FIELDS.problems(sent, true)
    if (!problems.amount && !problems.currency) {
      try {
        checkAmountDigits(sent)
      } catch (error) {
        Object.assign(problems, (error as PayError).errors)
      }
    }
    return { values: sent, problems }
  },
}
