#!/usr/bin/env node
/**
 * The rules every test follows (CONTRIBUTING.md, Test), checked by `npm run lint` in every test
 * and helper file (test/, but test/bench and test/fixtures) and the vitest configs:
 *   - no test writes process.env: the environment is passed in (a run's `env`, runCli's,
 *     runInProcess's; the workers' own from vitest.config.ts `test.env`). An assignment to it or
 *     to one of its variables, `delete`, Object.assign, Object.defineProperty or vi.stubEnv on it;
 *   - no timed assertion: a time is a figure for `npm run bench`. An expect() of an expression
 *     that measures time (Date.now() minus something, performance.now(), process.hrtime, or a
 *     name such as elapsed, took, duration, ms, waitedMs, gaps, startedAt) compared with
 *     toBeLessThan, toBeGreaterThan and the like;
 *   - no sleep followed by an assertion: a test waits on an event or a state, never for a while
 *     before it asserts that nothing (more) happened. An awaited sleep (sleep(), delay(),
 *     timers/promises' setTimeout(), a promise of setTimeout) whose next statement is an expect().
 *     A sleep that is the body of a loop polling a state is not one.
 * Comments and the contents of strings are not code: a test may hold an offending snippet as text.
 * `node scripts/check-tests.mjs [ROOT]` checks the tree at ROOT (this repository by default),
 * prints each offence as FILE:LINE: WHAT and exits 1 when there is any.
 */
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'))

/** Folders of test/ that hold no test code of the suite: benchmarks (times are their point), data. */
const SKIPPED = new Set(['test/bench', 'test/fixtures'])

const WRITES_ENV = [
  /\bprocess\.env(?:\s*\.\s*[A-Za-z_$][\w$]*|\s*\[[^\]]*\])?\s*(?:[-+*/%&|^]|\?\?|\|\||&&|<<|>>>?|\*\*)?=(?!=)/,
  /\bdelete\s+process\.env\b/,
  /\bObject\s*\.\s*(?:assign|defineProperty|defineProperties)\s*\(\s*process\.env\b/,
  /\bReflect\s*\.\s*(?:set|deleteProperty|defineProperty)\s*\(\s*process\.env\b/,
  /\bvi\s*\.\s*(?:stubEnv|unstubAllEnvs)\s*\(/,
]

/** What an expression that measures a time mentions. */
const MEASURES_TIME = [
  /\bDate\s*\.\s*now\s*\(\s*\)\s*-/,
  /\bperformance\s*\.\s*now\s*\(/,
  /\bprocess\s*\.\s*hrtime\b/,
  /\b(?:elapsed|took|duration|durationMs|ms|gaps?|waited|waitedMs|tookMs|elapsedMs)\b/,
  /\b(?:started|ended|finished|restarted)At\b/,
]
const COMPARES =
  /^(?:\s*\.\s*(?:not|resolves|rejects))*\s*\.\s*(toBeLessThan|toBeLessThanOrEqual|toBeGreaterThan|toBeGreaterThanOrEqual|toBeCloseTo)\b/

/** An awaited sleep: a statement that only waits for a while. */
const SLEEPS =
  /^\s*await\s+(?:sleep|delay|setTimeout|timers\.setTimeout)\s*\(|^\s*await\s+new\s+Promise\s*(?:<[^>]*>)?\s*\(\s*\(?\s*\w*\s*\)?\s*=>\s*setTimeout\s*\(/
const LOOP = /^\s*(?:for|while)\s*\(/

/**
 * `text` with comments and the contents of strings, template literals and regular expressions
 * replaced by spaces, line breaks kept: what is left is code, at the same lines and columns.
 */
export function codeOf(text) {
  let out = ''
  let i = 0
  /** The last character of code that is not a space: a `/` after it starts a regular expression. */
  let previous = ''
  const blank = (from, to) => {
    out += text.slice(from, to).replace(/[^\n]/g, ' ')
  }
  while (i < text.length) {
    const c = text[i]
    const next = text[i + 1]
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i)
      const stop = end === -1 ? text.length : end
      blank(i, stop)
      i = stop
      continue
    }
    if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2)
      const stop = end === -1 ? text.length : end + 2
      blank(i, stop)
      i = stop
      continue
    }
    const regexStart =
      c === '/' &&
      (previous === '' ||
        /[(,=:[!&|?{};+\-*%<>~^]/.test(previous) ||
        /\b(?:return|typeof|in|of)$/.test(out.trimEnd()))
    if (c === "'" || c === '"' || c === '`' || regexStart) {
      out += c
      let j = i + 1
      let inClass = false
      while (j < text.length) {
        const d = text[j]
        if (d === '\\') {
          j += 2
          continue
        }
        if (c !== '`' && d === '\n') break // an unterminated string or regex ends with its line
        if (regexStart && d === '[') inClass = true
        else if (regexStart && d === ']') inClass = false
        else if (d === c && !(regexStart && inClass)) break
        j += 1
      }
      blank(i + 1, Math.min(j, text.length))
      if (j < text.length && text[j] === c) out += c
      i = j < text.length && text[j] === c ? j + 1 : j
      previous = c === '/' ? 'a' : c
      continue
    }
    out += c
    if (!/\s/.test(c)) previous = c
    i += 1
  }
  return out
}

/** The index of the parenthesis that closes the one at `open`, in code; -1 if none. */
function closing(code, open) {
  let depth = 0
  for (let i = open; i < code.length; i++) {
    if (code[i] === '(') depth++
    else if (code[i] === ')' && --depth === 0) return i
  }
  return -1
}

const lineAt = (code, index) => code.slice(0, index).split('\n').length

/** A line that is a `for (...)` or `while (...)` alone: the next line is its body. */
function isLoopHeader(line) {
  const loop = LOOP.exec(line)
  if (!loop) return false
  const close = closing(line, loop[0].length - 1)
  return close !== -1 && line.slice(close + 1).trim() === ''
}

/** The offences of one file, as `LINE: WHAT`. */
export function offencesIn(text) {
  const code = codeOf(text)
  const lines = code.split('\n')
  const found = []
  lines.forEach((line, index) => {
    if (WRITES_ENV.some((pattern) => pattern.test(line)))
      found.push([
        index + 1,
        'writes process.env (pass the environment in: a run’s env, vitest.config.ts test.env)',
      ])
  })
  for (const match of code.matchAll(/\bexpect(?:\s*\.\s*soft)?\s*\(/g)) {
    const open = match.index + match[0].length - 1
    const close = closing(code, open)
    if (close === -1) continue
    const argument = code.slice(open + 1, close)
    const matcher = COMPARES.exec(code.slice(close + 1))
    if (matcher && MEASURES_TIME.some((pattern) => pattern.test(argument)))
      found.push([
        lineAt(code, match.index),
        `asserts a measured time (${matcher[1]}): assert behaviour; a time is a figure for npm run bench`,
      ])
  }
  lines.forEach((line, index) => {
    if (!SLEEPS.test(line) || LOOP.test(line) || (index > 0 && isLoopHeader(lines[index - 1]))) return
    // The statements after the sleep (its own line continued first), up to the next that waits
    // for something or the end of the block: one of them asserts.
    let next = index
    while (next < lines.length - 1 && !/[;)]\s*$/.test(lines[next])) next++
    for (let seen = 0; ++next < lines.length && seen < 8; ) {
      const after = lines[next]
      if (after.trim() === '') continue
      seen++
      if (/^\s*expect\b/.test(after)) {
        found.push([index + 1, 'sleeps, then asserts: wait on an event or a state instead'])
        return
      }
      if (/\bawait\b/.test(after) || /^\s*}/.test(after)) return
    }
  })
  return found.sort((a, b) => a[0] - b[0]).map(([line, what]) => `${line}: ${what}`)
}

function* testFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    const name = path.relative(root, full).split(path.sep).join('/')
    if (entry.isDirectory()) {
      if (!SKIPPED.has(name) && entry.name !== 'node_modules') yield* testFiles(full)
    } else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name)) yield full
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = [
    ...(fs.existsSync(path.join(root, 'test')) ? testFiles(path.join(root, 'test')) : []),
    ...fs
      .readdirSync(root)
      .filter((name) => /^vitest\..*\.(ts|mts|js|mjs)$/.test(name))
      .map((name) => path.join(root, name)),
  ]
  const offences = []
  for (const file of files) {
    const name = path.relative(root, file).split(path.sep).join('/')
    for (const offence of offencesIn(fs.readFileSync(file, 'utf8'))) offences.push(`${name}:${offence}`)
  }
  if (offences.length > 0) {
    process.stderr.write(
      `${offences.join('\n')}\n${offences.length} test rule offence(s): see CONTRIBUTING.md (Test) and scripts/check-tests.mjs.\n`,
    )
    process.exit(1)
  }
}
