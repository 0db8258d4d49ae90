import fs from 'node:fs'
import path from 'node:path'
import type { Json } from './links.js'

/** The journal file in `dir`, as PAY_JOURNAL_FILE. */
export const journalIn = (dir: string) => path.join(dir, 'journal.jsonl')

/** The entries of a journal file (JSON lines), in order. */
export const journalEntries = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Json)
