import type { Config } from '@oclif/core'
import { PayError } from '../errors.js'
import { GLOBAL_BOOLEAN_FLAGS, GLOBAL_FLAGS_WITH_VALUE } from './argv.js'
import { closest } from './suggest.js'

/** A name one level under a topic: a command or an alias of one, a topic, or both. */
interface Child {
  name: string
  topic: boolean
}

/** The names one level under `path` (words): commands and their aliases (names first), and topics. */
function childrenOf(config: Config, path: string[]): Child[] {
  const commands = config.commands.filter((command) => !command.hidden)
  const ids = [...commands.map((command) => command.id), ...commands.flatMap((command) => command.aliases)]
  const topics = config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name)
  const children = new Map<string, Child>()
  for (const id of [...ids, ...topics]) {
    const words = id.split(':')
    if (words.length <= path.length || path.some((word, i) => words[i] !== word)) continue
    const name = words[path.length]
    const child = children.get(name) ?? { name, topic: false }
    // oclif's topics hold every command's id as well: a topic is a name with names under it.
    child.topic ||= words.length > path.length + 1
    children.set(name, child)
  }
  return [...children.values()]
}

/**
 * A mistyped command, on a terminal or not: one error in pay's format, exit 2 (oclif's
 * plugin-not-found exits 127 and only suggests on a TTY). `id`: the words typed before the first
 * flag, as oclif joins them (`subs:rm:ID1:ID2`), or a flag typed before any word (`--jsn`);
 * `rest`: what followed it.
 *
 * The words are followed down the topics: one that is no name there is taken for the nearest
 * name at that depth (a command, an alias or a topic: suggest.ts), and a topic guessed so is
 * followed with the next word, until a command. Words after a command that takes none are an
 * unexpected argument of it.
 */
export function commandNotFound(config: Config, id: string, rest: string[] = []): PayError {
  if (id.startsWith('-')) return flagNotFound(config, id, rest)
  const words = id.split(':')
  const typed: string[] = []
  const guess: string[] = []
  /** The deepest topic typed exactly, whose help lists the commands there are. */
  let topic: string[] = []
  let mistyped = false
  let guessed = true
  for (const word of words) {
    const children = childrenOf(config, guess)
    const exact = children.find((child) => child.name === word)
    const near = closest(
      word,
      children.map((child) => child.name),
    )
    const nearest = exact ?? children.find((child) => child.name === near)
    if (!nearest) {
      // A word near nothing: named when it is the first one wrong; after a guess, left out of it.
      if (!mistyped) typed.push(word)
      guessed = mistyped
      mistyped = true
      break
    }
    typed.push(word)
    guess.push(nearest.name)
    if (exact && !mistyped && nearest.topic) topic = [...guess]
    mistyped ||= !exact
    if (!nearest.topic) break
  }
  const extra = words[typed.length]
  if (!mistyped && extra !== undefined) {
    return new PayError(`Unexpected argument: ${extra}`, {
      kind: 'usage',
      hint: `See \`pay ${typed.join(' ')} --help\`.`,
    })
  }
  const suggestion = guessed && mistyped ? ` Did you mean "${guess.join(' ')}"?` : ''
  return new PayError(`"${typed.join(' ')}" is not a pay command.${suggestion}`, {
    kind: 'usage',
    hint: `See \`${['pay', ...topic, '--help'].join(' ')}\` for the commands there are.`,
  })
}

/** The help of what the words name: the longest command or topic they begin with. */
function helpOf(config: Config, words: string[]): string {
  const named: string[] = []
  for (const word of words) {
    const id = [...named, word].join(':')
    if (word.startsWith('-') || (!config.findCommand(id) && !config.findTopic(id))) break
    named.push(word)
  }
  return ['pay', ...named, '--help'].join(' ')
}

/**
 * A flag written before the command that is none of those that go there (the global flags
 * argv.ts moves after the command, --help, --version): the nearest of them, never a command.
 */
function flagNotFound(config: Config, flag: string, rest: string[]): PayError {
  const withValue = [...GLOBAL_FLAGS_WITH_VALUE].filter((name) => name.startsWith('--'))
  const names = [...withValue, ...GLOBAL_BOOLEAN_FLAGS, '--help', '--version'].map((name) => name.slice(2))
  const typed = flag.replace(/=.*$/, '')
  const guess = typed.startsWith('--') ? closest(typed.slice(2), names) : undefined
  // The word after a flag that takes a value is its value, not the command.
  const takesValue = guess !== undefined && withValue.includes(`--${guess}`) && !flag.includes('=')
  const help = helpOf(config, takesValue ? rest.slice(1) : rest)
  return new PayError(`Nonexistent flag: ${typed}`, {
    kind: 'usage',
    hint: `${guess ? `Did you mean --${guess}? ` : ''}See \`${help}\`.`,
  })
}
