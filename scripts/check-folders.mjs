#!/usr/bin/env node
/**
 * No cycle between folders, checked by `npm run lint` (CONTRIBUTING.md, Layout and borders):
 * dependency-cruiser's no-circular rule sees cycles of modules, not of folders, and two folders
 * that import each other through different modules are one tangled part all the same. For each
 * folder named in LEVELS, its sub-folders (a file directly in it counts as a folder of its own:
 * src/errors.ts) must import one another without a cycle. Prints each cycle with one import of
 * each of its arrows, and exits 1 when there is any.
 *
 *   node scripts/check-folders.mjs [DEPCRUISE_JSON]   (else it runs depcruise on src itself)
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/** The folders whose parts must not import one another in a cycle. */
const LEVELS = ['src', 'src/sandbox', 'src/work']

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')

function modules() {
  const given = process.argv[2]
  const json = given
    ? fs.readFileSync(given, 'utf8')
    : execFileSync(
        process.execPath,
        [
          path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
          'src',
          '--config',
          '.dependency-cruiser.cjs',
          '--output-type',
          'json',
        ],
        { cwd: root, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      )
  return JSON.parse(json).modules
}

/** The part of `level` a module is in (`src/sandbox/store/store.ts` in `src/sandbox` is `store`). */
function partOf(file, level) {
  if (!file.startsWith(`${level}/`)) return undefined
  return file
    .slice(level.length + 1)
    .split('/')[0]
    .replace(/\.(ts|js|mjs)$/, '')
}

/** The strongly connected parts of a graph (Tarjan): each group of more than one is a cycle. */
function cycles(edges) {
  const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((to) => [...to.keys()])])].sort()
  let index = 0
  const stack = []
  const seen = new Map()
  const found = []
  const visit = (node) => {
    const mine = { index, low: index, onStack: true }
    index += 1
    seen.set(node, mine)
    stack.push(node)
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
      if (!seen.has(next)) {
        visit(next)
        mine.low = Math.min(mine.low, seen.get(next).low)
      } else if (seen.get(next).onStack) mine.low = Math.min(mine.low, seen.get(next).index)
    }
    if (mine.low !== mine.index) return
    const group = []
    for (;;) {
      const top = stack.pop()
      seen.get(top).onStack = false
      group.push(top)
      if (top === node) break
    }
    if (group.length > 1) found.push(group.sort())
  }
  for (const node of nodes) if (!seen.has(node)) visit(node)
  return found
}

const offences = []
const all = modules()
for (const level of LEVELS) {
  /** part -> part -> one import that makes the arrow ("from → to"). */
  const edges = new Map()
  for (const module of all) {
    const from = partOf(module.source, level)
    if (from === undefined) continue
    for (const dependency of module.dependencies) {
      const to = partOf(dependency.resolved, level)
      if (to === undefined || to === from) continue
      if (!edges.has(from)) edges.set(from, new Map())
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${module.source} → ${dependency.resolved}`)
    }
  }
  for (const group of cycles(edges)) {
    const arrows = group.flatMap((from) =>
      group
        .filter((to) => edges.get(from)?.has(to))
        .map((to) => `    ${from} → ${to}: ${edges.get(from).get(to)}`),
    )
    offences.push(
      `${level}: the folders ${group.join(', ')} import one another in a cycle:\n${arrows.join('\n')}`,
    )
  }
}

if (offences.length > 0) {
  process.stderr.write(
    `${offences.join('\n')}\n${offences.length} folder cycle(s): see scripts/check-folders.mjs.\n`,
  )
  process.exit(1)
}
