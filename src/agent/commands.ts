import type { Command, Config } from '@oclif/core'
import type { View } from '../render/views.js'
import { ENDPOINTS, type EndpointName } from '../shared/endpoints.js'
import type { Rec } from '../values.js'

/**
 * `pay commands --json`: every command of pay, from the declarations its help is made of
 * (oclif's manifest: summary, description, flags, arguments, examples), and whether it changes
 * state: it calls an endpoint declared to (src/shared/endpoints.ts), or it says so itself (pay's
 * own profiles, a sandbox snapshot, `pay api`'s requests).
 */

export const COMMAND_VIEW: View = {
  noun: 'command',
  plural: 'commands',
  listColumns: ['id', 'changes_state', 'summary'],
  recordFields: ['id', 'changes_state', 'summary', 'description'],
  idField: 'id',
  dropOrder: ['changes_state'],
}

type Loadable = Command.Loadable & { changesState?: unknown; calls?: readonly EndpointName[] }

/** `<%= config.bin %> links list` → `pay links list`. */
const rendered = (text: string, bin: string) => text.replace(/<%=\s*config\.bin\s*%>/g, bin)

function flagsOf(command: Loadable): Rec[] {
  return Object.values(command.flags ?? {})
    .filter((flag) => !flag.hidden)
    .map((flag) => ({
      name: flag.name,
      ...(flag.char ? { char: flag.char } : {}),
      type: flag.type,
      required: flag.required === true,
      default: flag.type === 'boolean' ? false : (flag.default ?? null),
      ...(flag.type === 'boolean' && flag.allowNo ? { negatable: true } : {}),
      ...(flag.type === 'option' && flag.multiple ? { multiple: true } : {}),
      ...(flag.type === 'option' && flag.options ? { options: flag.options } : {}),
      ...(flag.env ? { env: flag.env } : {}),
      description: flag.summary ?? flag.description ?? '',
    }))
}

function argsOf(command: Loadable): Rec[] {
  return Object.values(command.args ?? {})
    .filter((arg) => !arg.hidden)
    .map((arg) => ({ name: arg.name, required: arg.required === true, description: arg.description ?? '' }))
}

/** Every command of the config, by id as typed, aliases and hidden ones left out. */
export function commandList(config: Config): Rec[] {
  const changes = (command: Loadable) =>
    (command.calls ?? []).some((name) => ENDPOINTS[name]?.changesState === true)
  const commands = config.commands as Loadable[]
  // oclif lists each alias as a command of its own: it is said under the command it stands for.
  const aliases = new Set(commands.flatMap((command) => command.aliases))
  return commands
    .filter((command) => !command.hidden && !aliases.has(command.id))
    .map((command) => {
      const id = command.id.replace(/:/g, config.topicSeparator)
      const examples = (command.examples ?? []).map((example) =>
        typeof example === 'string'
          ? rendered(example, config.bin)
          : { ...example, command: rendered(example.command, config.bin) },
      )
      return {
        id,
        summary: rendered(command.summary ?? command.description?.split('\n')[0] ?? '', config.bin),
        description: rendered(command.description ?? command.summary ?? '', config.bin),
        aliases: command.aliases.map((alias) => alias.replace(/:/g, config.topicSeparator)),
        flags: flagsOf(command),
        args: argsOf(command),
        examples,
        changes_state: changes(command) || command.changesState === true,
      }
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}
