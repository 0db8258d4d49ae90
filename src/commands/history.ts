import { Flags } from '@oclif/core'
import { BaseCommand } from '../cli/base-command.js'
import { listFlags, outputFlags } from '../cli/flags.js'
import { type Result, shown } from '../render/result.js'
import { history } from '../work/history/history.js'

export default class History extends BaseCommand<typeof History> {
  static summary = 'Show the changes pay has sent, newest first'
  static description =
    'Every create, update, delete and cancel pay sends is written to a local journal (JSON lines, ' +
    'mode 0600): its intent before the request, its outcome after. A change with no outcome ' +
    '("unknown") was interrupted and may or may not have happened, unless a --resume found the record in the ' +
    'state it was to make ("found cancelled", "found gone"). The journal is ' +
    "$PAY_JOURNAL_FILE, else journal.jsonl in pay's data directory; PAY_JOURNAL=0 turns it off."

  static examples = [
    '<%= config.bin %> history',
    '<%= config.bin %> history --since 7d',
    '<%= config.bin %> history --id 65a1f0c2e4b0a1b2c3d4e5f6 --json',
    '<%= config.bin %> history --since 2026-11-01 --format csv > changes.csv',
  ]

  static flags = {
    since: Flags.string({
      description: 'Only changes from then on: a date (2026-11-01) or a span (24h, 7d).',
    }),
    id: Flags.string({ description: 'Only the changes of this record (_id).' }),
    // The journal is one local file, read whole: no pages, so no --all.
    jsonl: listFlags.jsonl,
    limit: listFlags.limit,
    format: listFlags.format,
    bom: listFlags.bom,
    ...outputFlags,
  }

  async run(): Promise<Result> {
    const found = await history({ since: this.flags.since, id: this.flags.id }, this.context)
    return shown.list(found.changes, found.view, found.outcome)
  }
}
