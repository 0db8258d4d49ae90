#!/usr/bin/env node
/**
 * No cycle between folders, checked by `npm run lint` (CONTRIBUTING.md, Layout and borders).
 * dependency-cruiser's `no-circular` sees modules only: a folder that imports another which
 * imports it back through other files passes it. Here, for every folder of src, what it holds
 * directly (each sub-folder with everything in it, and each file of its own) is a node, and an
 * import from one to another an edge: there must be no cycle among them. So the parts of src
 * import one another one way only, and so do the layers of src/sandbox (domain, store, handlers,
 * http) and the folders inside each.
 *
 * The imports are dependency-cruiser's, with the lint's configuration (type-only imports count),
 * of the tree in the current directory. Prints each cycle with the imports that make it and exits
 * 1 when there is any.
 */
import { spawnSync } from 'node:child_process'
import path from 'node:path'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const depcruise = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs')

const run = spawnSync(
  process.execPath,
  [depcruise, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
  { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
)
let modules
try {
  modules = JSON.parse(run.stdout).modules
} catch {
  process.stderr.write(`check-folders: dependency-cruiser gave no report.\n${run.stderr}`)
  process.exit(1)
}

/**
 * The edges between the nodes of each folder: for an import from a to b, the folder is their
 * deepest common one, and the nodes what it holds that a and b are in.
 */
const folders = new Map()
for (const { source, dependencies } of modules) {
  if (!source.startsWith('src/')) continue
  for (const { resolved } of dependencies) {
    if (!resolved.startsWith('src/')) continue
    const from = source.split('/')
    const to = resolved.split('/')
    let depth = 0
    while (depth < from.length - 1 && depth < to.length - 1 && from[depth] === to[depth]) depth++
    const a = from[depth]
    const b = to[depth]
    if (a === b) continue
    const folder = from.slice(0, depth).join('/')
    if (!folders.has(folder)) folders.set(folder, new Map())
    const edges = folders.get(folder)
    if (!edges.has(a)) edges.set(a, new Map())
    if (!edges.get(a).has(b)) edges.get(a).set(b, [])
    edges.get(a).get(b).push(`${source} → ${resolved}`)
  }
}

/** The strongly connected components of more than one node (Tarjan): the cycles. */
function cycles(edges) {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const found = []
  const visit = (node) => {
    index.set(node, index.size)
    low.set(node, index.get(node))
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)))
    }
    if (low.get(node) !== index.get(node)) return
    const component = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1) found.push(component.sort())
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return found
}

const offences = []
for (const [folder, edges] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
  for (const component of cycles(edges)) {
    const inside = new Set(component)
    const imports = component.flatMap((a) =>
      [...(edges.get(a) ?? [])]
        .filter(([b]) => inside.has(b))
        .map(
          ([b, via]) => `  ${a} → ${b}: ${via[0]}${via.length > 1 ? ` (and ${via.length - 1} more)` : ''}`,
        ),
    )
    offences.push(`${folder}: a cycle between ${component.join(', ')}\n${imports.join('\n')}`)
  }
}
if (offences.length > 0) {
  process.stderr.write(
    `${offences.join('\n')}\n${offences.length} folder cycle offence(s): see scripts/check-folders.mjs.\n`,
  )
  process.exit(1)
}
