/**
 * What the --help of each bulk command says of its report: the columns, the time zone, the
 * formula prefix, the meta file and the resume rules, in the same words everywhere.
 */

const COMMON =
  '`at` is when the row was written, in UTC, as YYYY-MM-DD HH:MM:SS (spreadsheets read it as a date). ' +
  "A cell a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return) is written with a leading ', " +
  'which --resume and --from-file remove again. FILE.meta.json beside the report records the run: the command, profile, ' +
  'base URL, input (file, count, hash), when it started and, once it ended, a closing mark.'

const RESUME =
  'RESUME: --resume REPORT skips what the report records done (no request), tries the rest again and rewrites the report ' +
  'in one step, one row per item. A run that was killed (no closing mark) is resumed only with its input given again, ' +
  'unless its report names every id of that input; a report of another command is refused, and one made against another ' +
  'profile or base URL needs --force.'

/** The REPORT and RESUME paragraphs of `subs cancel`, `links delete` and `subs delete`. */
export function idReportHelp(statuses: string, describes: string): string {
  return (
    `\n\nREPORT: --report FILE writes a CSV (mode 0600) whose row 1 is the header, then one row per id in its final state: ` +
    `id; ok (true or false); status (${statuses}); error (why, when not ok); at; ${describes}. ${COMMON}` +
    `\n\n${RESUME}`
  )
}

/**
 * The same for `links create --from-csv` and `subs create --from-csv`: `made` is what each row's
 * record keeps in the report after its _id (`_id and payment_url of the link made`), `row` what of
 * the row it keeps (`email, title, amount and currency`).
 */
export const csvReportHelp = (made: string, row: string) =>
  '\n\nREPORT: --report FILE writes a CSV (mode 0600) whose row 1 is the header, then one row per CSV row in its final ' +
  'state: line (of the CSV file); ok; status (created, failed, unknown: its POST may have reached the service, invalid, ' +
  `not_done); error (the local or service field errors, e.g. \`email: The email must be a valid email address.\`); ${made}; ` +
  `at; ${row} of the row; idempotency_key (sent with its POST; --retry-unknown sends it again); row_hash (to tell the ` +
  `same CSV row again). ${COMMON}` +
  `\n\n${RESUME}`
