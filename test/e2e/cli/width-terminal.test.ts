import fs from 'node:fs'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { displayWidth } from '../../../src/render/table/width.js'
import { tempDir } from '../../helpers/cli.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'
import { WIDTH_DISPUTES } from '../../helpers/width-disputes.js'

/**
 * A real terminal (tmux) measures the texts on which string-width 4, and so cli-table3, goes
 * wrong (test/unit/render/table/cli-table3.test.ts) as pay's width module does: each text is
 * written, then the terminal is asked where its cursor is (ESC [ 6 n, answered on the input in
 * order with the output, so no race).
 */

afterAll(closeTerminals)

/** Writes each text at the start of a line, and its columns (the cursor's column) to a file. */
const MEASURE = `
out=$1; shift
stty -echo -icanon min 1
for text in "$@"; do
  printf '\\r\\033[K%s\\033[6n' "$text"
  IFS= read -r -d R reply
  echo "$(( \${reply##*;} - 1 ))" >> "$out"
done`

it('tmux gives each text the columns that width.ts gives it', async () => {
  const out = path.join(tempDir('pay-width-'), 'columns')
  const texts = WIDTH_DISPUTES.map((dispute) => dispute.text)
  const term = await startTerminal([], { command: ['/bin/bash', '-c', MEASURE, 'measure', out, ...texts] })
  expect(await term.exitCode()).toBe(0)
  const columns = fs.readFileSync(out, 'utf8').trim().split('\n').map(Number)
  expect(columns).toEqual(WIDTH_DISPUTES.map((dispute) => dispute.terminal))
  expect(columns).toEqual(texts.map(displayWidth))
})
