/**
 * Which route of the table (routes.ts) a request's method and path are: each path of the table
 * once, its `{…}` segments matched one each; a path no route declares is answered by its prefix.
 */
import type { Method } from '../../shared/fields.js'
import { ROUTES, type Route } from './routes.js'

/** The routes of one path, and its pattern: each `{…}` matches one segment, a group of its own, named in `names`. */
interface PathRoutes {
  pattern: RegExp
  names: string[]
  routes: Route[]
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&')

/** Each path of the table once, in the table's order, with its routes in theirs (the Allow header's). */
const PATHS: readonly PathRoutes[] = (() => {
  const byPath = new Map<string, PathRoutes>()
  for (const declared of ROUTES) {
    let entry = byPath.get(declared.path)
    if (!entry) {
      const pattern = escapeRegExp(declared.path).replace(/\{[^}]+\}/g, '([^/]+)')
      const names = [...declared.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name)
      entry = { pattern: new RegExp(`^${pattern}$`), names, routes: [] }
      byPath.set(declared.path, entry)
    }
    entry.routes.push(declared)
  }
  return [...byPath.values()]
})()

/**
 * What a request's method and path are routed to: the route, its `{id}` segment (or its one
 * `{…}`) as sent and each of its `{…}` segments by name; or,
 * for a path no route declares with that method, how the miss is answered: its kind (by the
 * path's prefix), the methods the path takes (empty: 404; else 405), and the API's `faults` and
 * `recorded` for a path outside /_sandbox/ and /checkout.
 */
export type Routed =
  | {
      route: Route
      segment: string
      segments: Readonly<Record<string, string>>
      faults: boolean
      recorded: boolean
    }
  | {
      route: undefined
      kind: 'api' | 'control' | 'page'
      allowed: Method[]
      faults: boolean
      recorded: boolean
    }

export function routeOf(method: string, path: string): Routed {
  for (const { pattern, names, routes } of PATHS) {
    const match = pattern.exec(path)
    if (!match) continue
    const found = routes.find((candidate) => candidate.method === method)
    if (found) {
      const segments = Object.fromEntries(names.map((name, i) => [name, match[i + 1]]))
      const segment = segments.id ?? (names.length === 1 ? match[1] : '')
      return { route: found, segment, segments, faults: found.faults, recorded: found.recorded }
    }
    return missed(
      path,
      routes.map((candidate) => candidate.method),
    )
  }
  return missed(path, [])
}

function missed(path: string, allowed: Method[]): Routed {
  const kind = /^\/checkout(?:\/|$)/.test(path)
    ? 'page'
    : /^\/_sandbox(?:\/|$)/.test(path)
      ? 'control'
      : 'api'
  const api = kind === 'api'
  return { route: undefined, kind, allowed, faults: api, recorded: api }
}
