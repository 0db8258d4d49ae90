import { ENDPOINTS, type Endpoint, type EndpointName, endpointAt } from '../../src/shared/endpoints.js'
import { commandOf, MANIFEST, typed } from './manifest.js'

/**
 * The endpoint table (src/shared/endpoints.ts) as the tests read it: which commands call which
 * endpoints (each command's `static calls`, in the manifest), and which endpoint each request a
 * command sent went to. Lists of commands that tests must cover are taken from here and the
 * manifest, never kept by hand.
 */

/** Each command (as typed: `links create`) and the endpoints it declares it calls, in the table's order. */
export function commandMap(): Map<string, Endpoint[]> {
  const order = Object.values(ENDPOINTS) as Endpoint[]
  const map = new Map<string, Endpoint[]>()
  for (const command of Object.values(MANIFEST.commands)) {
    const calls = (command.calls ?? []).map((name) => ENDPOINTS[name as EndpointName])
    if (calls.length === 0) continue
    map.set(
      typed(command.id),
      calls.sort((a, b) => order.indexOf(a) - order.indexOf(b)),
    )
  }
  return map
}

/** The commands (as the manifest names them: `links:create`) that call an endpoint `which` picks. */
export function commandsCalling(which: (endpoint: Endpoint) => boolean): string[] {
  return [...commandMap()]
    .filter(([, endpoints]) => endpoints.some(which))
    .map(([command]) => command.replace(/ /g, ':'))
    .sort()
}

/**
 * The commands whose every request is to one record of the service, by id, with no body: they take
 * the id as their one argument (`links get ID`, `links refund ID`). The tests that must run every
 * command run these with a seeded id of the record's noun, unless they run them by hand already.
 */
export function idOnlyCommands(): { command: string; noun: string }[] {
  return [...commandMap()]
    .filter(([, endpoints]) =>
      endpoints.every((e: Endpoint) => !e.sandbox && e.path.includes('{id}') && !e.body && !e.query),
    )
    .map(([command, endpoints]) => ({ command, noun: endpoints[0].noun }))
}

/** The command a command line runs, global flags (`-p sandbox`, `--base-url URL`) before it skipped. */
export const commandOfArgs = (args: string[]): string | undefined =>
  commandOf(args.filter((arg, i) => !arg.startsWith('-') && !args[i - 1]?.match(/^-(p|-profile|-base-url)$/)))

/**
 * The requests a --debug trace shows (`[debug] > GET http://host/payment-links/ID`): method and
 * path, under the base URL (the service's `/api`, which a profile's base URL may end in, left out).
 */
export function tracedRequests(stderr: string): { method: string; path: string }[] {
  return [...stderr.matchAll(/^\[debug\] > ([A-Z]+) (\S+)$/gm)].map(([, method, url]) => ({
    method,
    path: new URL(url).pathname.replace(/^\/api(?=\/)/, ''),
  }))
}

/**
 * The requests a command sent that its declarations do not say it sends: to no declared
 * endpoint, or to one the command's `static calls` do not name. `command` as typed.
 */
export function undeclaredRequests(command: string, requests: { method: string; path: string }[]): string[] {
  const calls = commandMap().get(command) ?? []
  return requests
    .filter(({ method, path }) => {
      const endpoint = endpointAt(method, path)
      return endpoint === undefined || !calls.includes(endpoint)
    })
    .map(({ method, path }) => `${command}: ${method} ${path}`)
}

/**
 * The tools `pay mcp` serves for the service, as the commands name them: for each endpoint of the
 * service (and each preset), the command that calls it and ends in its verb (`links create` sends
 * createLink, `subs cancel` the cancel of Update Subscription), `_` for its space. Sorted.
 */
export function serviceToolNames(): string[] {
  const names: string[] = []
  for (const endpoint of Object.values(ENDPOINTS) as Endpoint[]) {
    if (endpoint.sandbox) continue
    for (const verb of [endpoint.verb, ...(endpoint.presets ?? []).map((preset) => preset.verb)]) {
      const command = [...commandMap()].find(
        ([name, calls]) => calls.includes(endpoint) && name.split(' ').at(-1) === verb && name.includes(' '),
      )
      if (command) names.push(command[0].replace(' ', '_'))
    }
  }
  return names.sort()
}
