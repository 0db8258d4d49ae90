#!/usr/bin/env node
/**
 * The shape of src/, checked by `npm run lint` (CONTRIBUTING.md, Layout):
 *   - no source file over 400 lines, no command (src/commands) over 80: a file holds one concern,
 *     and a command parses, calls and returns what it produced;
 *   - one output path: no command mentions `flags.json`, `.stdout`, `.stderr` or `console.`. Its
 *     run() returns what it produced (src/render/result.ts) and the base command prints it;
 *   - one run context (src/runtime/context.ts): process.env is read only where the run's
 *     environment is (READS_PROCESS_ENV), and no code of src replaces a stream's write;
 *   - no folder of src holds more than 16 source files directly (MAX_FOLDER_FILES): a part that
 *     grows is split by concern into sub-folders;
 *   - types are not forced: at most MAX_FORCED_CASTS `as unknown as` in all of src;
 *   - no comment cites a tracker's issue number: the tracker is not in the repository, and a
 *     comment says why, not when.
 * Prints each offence as FILE:LINE: WHAT and exits 1 when there is any.
 */
import fs from 'node:fs'
import path from 'node:path'

const MAX_SOURCE_LINES = 400
const MAX_COMMAND_LINES = 80
const MAX_FOLDER_FILES = 16
const MAX_FORCED_CASTS = 2
/** "issue 21", "issues 3 and 4", "issue #7": a tracker's number. */
const CITES_ISSUE = /\bissues? #?\d+\b/i
const FORBIDDEN_IN_COMMANDS = ['flags.json', '.stdout', '.stderr', 'console.']
/** The files that read process.env: pay's entry, for the run's environment. */
const READS_PROCESS_ENV = new Set(['src/cli/main.ts'])
/** A line of code, not of a comment. */
const isCode = (line) => !/^\s*(\/\/|\/\*|\*)/.test(line)

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const src = path.join(root, 'src')

function* sourceFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) yield* sourceFiles(full)
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield full
  }
}

const offences = []
const filesIn = new Map()
const forcedCasts = []
for (const file of sourceFiles(src)) {
  const name = path.relative(root, file)
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  const count = lines.at(-1) === '' ? lines.length - 1 : lines.length
  const isCommand = name.startsWith(`src${path.sep}commands${path.sep}`)
  if (count > MAX_SOURCE_LINES)
    offences.push(`${name}: ${count} lines (at most ${MAX_SOURCE_LINES} in a source file)`)
  if (isCommand && count > MAX_COMMAND_LINES)
    offences.push(
      `${name}: ${count} lines (at most ${MAX_COMMAND_LINES} in a command: move the work to a part)`,
    )
  const where = name.split(path.sep).join('/')
  const folder = path.dirname(where)
  filesIn.set(folder, (filesIn.get(folder) ?? 0) + 1)
  lines.forEach((line, index) => {
    if (CITES_ISSUE.test(line))
      offences.push(`${name}:${index + 1}: cites an issue number (say why, not which issue asked)`)
    if (!isCode(line)) return
    if (line.includes('as unknown as')) forcedCasts.push(`${name}:${index + 1}`)
    if (line.includes('process.env') && !READS_PROCESS_ENV.has(where))
      offences.push(
        `${name}:${index + 1}: reads process.env (the run's environment is the run context's: env)`,
      )
    if (/\.write\s*=[^=]/.test(line))
      offences.push(`${name}:${index + 1}: replaces a stream's write (print what was produced instead)`)
  })
  if (!isCommand) continue
  lines.forEach((line, index) => {
    for (const word of FORBIDDEN_IN_COMMANDS) {
      if (line.includes(word))
        offences.push(
          `${name}:${index + 1}: mentions \`${word}\` (a command returns what it produced; the base command prints it)`,
        )
    }
  })
}

for (const [folder, count] of filesIn) {
  if (count > MAX_FOLDER_FILES)
    offences.push(
      `${folder}: ${count} source files (at most ${MAX_FOLDER_FILES} in a folder: split it by concern)`,
    )
}
if (forcedCasts.length > MAX_FORCED_CASTS)
  offences.push(
    `src: ${forcedCasts.length} \`as unknown as\` casts (at most ${MAX_FORCED_CASTS} in src): ${forcedCasts.sort().join(', ')}`,
  )

if (offences.length > 0) {
  process.stderr.write(
    `${offences.join('\n')}\n${offences.length} shape offence(s): see scripts/check-shape.mjs.\n`,
  )
  process.exit(1)
}
