import fs from 'node:fs'
import path from 'node:path'
import { configDir, configPath } from '../../config/file.js'
import { cachedIds, type IdKind } from '../../config/id-cache.js'
import { ENDPOINTS, type EndpointName, takesId } from '../../shared/endpoints.js'

/**
 * `pay __complete ids|fish -- WORD…`: what <TAB> completes, from pay's manifest and the cache of
 * the ids pay has shown (config/id-cache.ts). No request is sent and nothing of the CLI is loaded:
 * bin/run.js runs dist/complete.cjs, this module alone, before it loads pay. WORDs are the words
 * after `pay`, the last the one being completed (empty after a space).
 * - `ids` (bash and zsh, whose commands and flags oclif's autocomplete plugin completes): the ids
 *   that fit there, one a line, exit 0; exit 1 when the word is no id of a command that takes one.
 * - `fish`: everything, `value<TAB>description` a line: topics, commands, flags, a flag's values,
 *   ids; exit 3 when a file name fits there (the fish script then completes paths).
 */

interface ManifestFlag {
  name: string
  char?: string
  type: 'option' | 'boolean'
  summary?: string
  description?: string
  hidden?: boolean
  options?: string[]
  allowNo?: boolean
}

interface ManifestCommand {
  id: string
  args?: Record<string, { name: string }>
  /** The endpoints it calls, by name (src/shared/endpoints.ts). */
  calls?: string[]
  strict?: boolean
  summary?: string
  description?: string
  hidden?: boolean
  aliases?: string[]
  flags: Record<string, ManifestFlag>
}

/** What completion reads of oclif.manifest.json and package.json. */
export interface CommandMap {
  commands: Record<string, ManifestCommand>
  topics: Record<string, { description?: string }>
}

/** pay's commands and topics, from the manifest and package.json in pay's directory `root`. */
export function loadCommandMap(root: string): CommandMap {
  const read = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'))
  return {
    commands: read('oclif.manifest.json').commands ?? {},
    topics: read('package.json').oclif?.topics ?? {},
  }
}

/** The kind of id each noun of the endpoint table has in the id cache. */
const ID_KINDS: Readonly<Record<string, IdKind>> = { 'payment link': 'links', subscription: 'subscriptions' }

/**
 * What a command takes as its argument `id`, from the manifest: the kind of id of the first
 * endpoint it calls that names one record (`{id}`), several when it takes a list of them
 * (`strict: false`), and, for the sandbox's commands, the sandbox's profile unless one is named
 * (RunContext.sandboxTarget). Undefined when its argument is no id of a record.
 */
export function idArgOf(
  command: ManifestCommand,
): { kind: IdKind; many: boolean; profile?: string } | undefined {
  if (!command.args?.id) return undefined
  const named = (command.calls ?? [])
    .map((name) => ENDPOINTS[name as EndpointName])
    .find((e) => e && takesId(e))
  const kind = named && ID_KINDS[named.noun]
  if (!kind) return undefined
  return {
    kind,
    many: command.strict === false,
    ...(command.id.startsWith('sandbox:') ? { profile: 'sandbox' } : {}),
  }
}

/** The global flags that take a value, as they may come before the command (cli/argv.ts). */
const GLOBAL_VALUES = new Set(['-p', '--profile', '--base-url', '--timeout', '--jq'])
const GLOBAL_BOOLEANS = new Set(['--json', '--debug', '--jsonl'])

/** The commands of oclif's plugins, which the manifest of pay's own commands does not hold. */
const PLUGIN_COMMANDS: Record<string, string> = {
  autocomplete: 'Display autocomplete installation instructions',
  help: 'Display help for pay',
}

/** The command line as read: the command, the profile named, what the word being completed is. */
interface Line {
  /** The words that name the command, or topic, so far. */
  path: string[]
  command?: ManifestCommand
  profile?: string
  /** The words after the command, before the current one. */
  rest: string[]
  current: string
}

/** `--flag = value` as bash splits it (`=` is in COMP_WORDBREAKS), put back together. */
function joined(words: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < words.length; i += 1) {
    if (words[i] === '=' && out.length > 0 && out[out.length - 1].startsWith('-') && i + 1 < words.length) {
      out[out.length - 1] += `=${words[i + 1]}`
      i += 1
    } else out.push(words[i])
  }
  return out
}

const profileIn = (word: string, next: string | undefined): string | undefined => {
  if (word === '-p' || word === '--profile') return next
  if (word.startsWith('--profile=')) return word.slice('--profile='.length)
  if (/^-p./.test(word)) return word.slice(2)
  return undefined
}

function readLine(words: string[], map: CommandMap): Line {
  const all = joined(words)
  const current = all.pop() ?? ''
  let i = 0
  let profile: string | undefined
  // Global flags before the command.
  while (i < all.length) {
    const word = all[i]
    const name = word.split('=')[0]
    if (GLOBAL_BOOLEANS.has(word)) i += 1
    else if (GLOBAL_VALUES.has(word)) {
      profile = profileIn(word, all[i + 1]) ?? profile
      i += 2
    } else if ((GLOBAL_VALUES.has(name) && word.includes('=')) || /^-p./.test(word)) {
      profile = profileIn(word, undefined) ?? profile
      i += 1
    } else break
  }
  // Every word that goes on naming a command or a topic belongs to the command: the longest wins
  // (`sandbox clock advance`, not `sandbox clock`); an alias names its command (`links rm`).
  const path: string[] = []
  let command: ManifestCommand | undefined
  while (i < all.length && !all[i].startsWith('-') && leadsToCommand([...path, all[i]], map)) {
    path.push(all[i])
    command = commandAt(path.join(':'), map) ?? command
    i += 1
  }
  return { path, command, profile, rest: all.slice(i), current }
}

/** Whether `path` names a command (or an alias), or a topic of commands. */
function leadsToCommand(path: string[], map: CommandMap): boolean {
  const id = path.join(':')
  return (
    commandAt(id, map) !== undefined || Object.keys(map.commands).some((other) => other.startsWith(`${id}:`))
  )
}

/** The command with this id or alias (`links:rm` is `links:delete`). */
function commandAt(id: string, map: CommandMap): ManifestCommand | undefined {
  if (Object.hasOwn(map.commands, id)) return map.commands[id]
  return Object.values(map.commands).find((command) => command.aliases?.includes(id))
}

/** Where the word being completed stands after the command: a flag's value, or the Nth argument. */
function position(line: Line): { valueFor?: ManifestFlag; args: string[]; profile?: string } {
  const flags = Object.values(line.command?.flags ?? {})
  const byName = (name: string) => flags.find((flag) => flag.name === name)
  const byChar = (char: string) => flags.find((flag) => flag.char === char)
  const args: string[] = []
  let profile = line.profile
  let flagsDone = false
  for (let i = 0; i < line.rest.length; i += 1) {
    const word = line.rest[i]
    if (flagsDone || word === '-' || !word.startsWith('-')) {
      args.push(word)
      continue
    }
    if (word === '--') {
      flagsDone = true
      continue
    }
    profile = profileIn(word, line.rest[i + 1]) ?? profile
    const flag = word.startsWith('--') ? byName(word.slice(2).split('=')[0]) : byChar(word[1])
    const inline = word.startsWith('--') ? word.includes('=') : word.length > 2
    if (flag?.type === 'option' && !inline) {
      if (i + 1 === line.rest.length) return { valueFor: flag, args, profile }
      i += 1
    }
  }
  return { args, profile }
}

/** The profile whose ids to offer: the one named on the line, PAY_PROFILE, else the current one. */
function profileOf(named: string | undefined, fallback: string | undefined, env: NodeJS.ProcessEnv) {
  if (named) return named
  if (env.PAY_PROFILE) return env.PAY_PROFILE
  if (fallback) return fallback
  try {
    const current = JSON.parse(fs.readFileSync(configPath(configDir(env)), 'utf8')).current
    return typeof current === 'string' ? current : undefined
  } catch {
    return undefined
  }
}

/** The ids to offer for the word being completed; undefined when it is no id of a command that takes one. */
export function idsToComplete(
  words: string[],
  env: NodeJS.ProcessEnv,
  map: CommandMap,
): string[] | undefined {
  const line = readLine(words, map)
  const takes = line.command && idArgOf(line.command)
  if (!takes || line.current.startsWith('-')) return undefined
  const at = position(line)
  if (at.valueFor) return undefined
  if (!takes.many && at.args.length > 0) return []
  const given = new Set(at.args.map((arg) => arg.toLowerCase()))
  const typed = line.current.toLowerCase()
  return cachedIds(env, profileOf(at.profile, takes.profile, env), takes.kind).filter(
    (id) => id.startsWith(typed) && !given.has(id),
  )
}

/** One candidate for fish: the value and what it is. */
export interface Candidate {
  value: string
  description?: string
}

/** A description on one line, short enough for a completion menu. */
const brief = (text: string | undefined) => {
  const line = (text ?? '').split('\n')[0].replace(/\s+/g, ' ').trim()
  return line.length > 70 ? `${line.slice(0, 69)}…` : line
}

/** Everything fish may complete for the word; `files` when a path fits there instead. */
export function fishCandidates(
  words: string[],
  env: NodeJS.ProcessEnv,
  map: CommandMap,
): Candidate[] | 'files' {
  const line = readLine(words, map)
  const { command, current } = line
  if (command === undefined) {
    if (current.startsWith('-')) return flagCandidates(Object.values(map.commands.version?.flags ?? {}), true)
    return childrenOf(line.path, map)
  }
  if (current.startsWith('-')) return flagCandidates(Object.values(command.flags), false)
  const at = position(line)
  if (at.valueFor) {
    if (at.valueFor.options) return at.valueFor.options.map((value) => ({ value }))
    return FILE_FLAGS.has(at.valueFor.name) ? 'files' : []
  }
  // A command that is also a topic (`sandbox clock`): its own commands.
  const below = line.rest.length === 0 ? childrenOf(line.path, map) : []
  if (below.length > 0) return below
  const ids = idsToComplete(words, env, map)
  if (ids !== undefined) return ids.map((value) => ({ value }))
  return FILE_ARGS.has(command.id) ? 'files' : []
}

/** The flags whose value is a file's name (`--from-file`, `--report`, `qr --output`). */
const FILE_FLAGS = new Set(['from-file', 'from-csv', 'report', 'resume', 'output', 'input', 'seed'])
/** The commands whose argument is a file's name. */
const FILE_ARGS = new Set(['sandbox:seed'])

/** The topics and commands one level below `path` (the root's when it is empty). */
function childrenOf(path: string[], map: CommandMap): Candidate[] {
  const prefix = path.length === 0 ? '' : `${path.join(':')}:`
  const found = new Map<string, string>()
  const add = (id: string, description: string | undefined) => {
    if (!id.startsWith(prefix)) return
    const name = id.slice(prefix.length).split(':')[0]
    if (name !== '' && !found.has(name)) found.set(name, brief(description))
  }
  for (const [id, topic] of Object.entries(map.topics)) add(id, topic.description)
  for (const command of Object.values(map.commands))
    if (!command.hidden) add(command.id, command.summary ?? command.description)
  if (prefix === '') for (const [id, description] of Object.entries(PLUGIN_COMMANDS)) add(id, description)
  return [...found]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([value, description]) => ({ value, description }))
}

/** A command's flags (or, before any command, the global ones), long and short. */
function flagCandidates(flags: ManifestFlag[], globalOnly: boolean): Candidate[] {
  const shown = flags.filter(
    (flag) =>
      !flag.hidden &&
      (!globalOnly || GLOBAL_VALUES.has(`--${flag.name}`) || GLOBAL_BOOLEANS.has(`--${flag.name}`)),
  )
  return shown.flatMap((flag) => {
    const description = brief(flag.summary ?? flag.description)
    return [
      { value: `--${flag.name}`, description },
      ...(flag.allowNo ? [{ value: `--no-${flag.name}`, description }] : []),
      ...(flag.char ? [{ value: `-${flag.char}`, description }] : []),
    ]
  })
}

/**
 * `pay __complete SHELL -- WORD…` (bin/run.js): what it prints, and its exit code. A command line
 * it cannot read completes nothing; it never fails louder than that.
 */
export function complete(
  argv: string[],
  env: NodeJS.ProcessEnv,
  map: () => CommandMap,
): { text: string; code: number } {
  const [mode, separator, ...words] = argv
  if (separator !== '--' || (mode !== 'ids' && mode !== 'fish')) return { text: '', code: 2 }
  if (mode === 'ids') {
    const ids = idsToComplete(words, env, map())
    return ids === undefined ? { text: '', code: 1 } : { text: ids.map((id) => `${id}\n`).join(''), code: 0 }
  }
  const found = fishCandidates(words, env, map())
  if (found === 'files') return { text: '', code: 3 }
  const text = found
    .map(({ value, description }) => (description ? `${value}\t${description}\n` : `${value}\n`))
    .join('')
  return { text, code: 0 }
}
