import type { Config } from '@oclif/core'
import { PayError } from '../errors.js'
import { closest } from './suggest.js'

/**
 * A mistyped command, on a terminal or not: one error in pay's format naming the command it
 * most likely meant, exit 2 (oclif's plugin-not-found exits 127 and only suggests on a TTY).
 * `id`: the words typed before the first flag, as oclif joins them (`subs:rm:ID1:ID2`).
 */
export function commandNotFound(config: Config, id: string): PayError {
  // oclif puts every word before the first flag in the id (`subs rm ID1 ID2`): the command typed
  // is a topic and one more word, or a mistyped topic and the word after it, or one word.
  const words = id.split(':')
  const topic = config.findTopic(words[0])
  const commands = config.commands
    .filter((command) => !command.hidden)
    .flatMap((command) => [command.id, ...command.aliases])
    .map((name) => name.replace(/:/g, ' '))
  const twoWords = words.slice(0, 2).join(' ')
  const guessOfTwo = words.length > 1 ? closest(twoWords, commands) : undefined
  const typed = topic || guessOfTwo ? twoWords : words[0]
  const guess = topic ? closest(typed, commands) : (guessOfTwo ?? closest(typed, commands))
  const help = topic ? `pay ${topic.name} --help` : 'pay --help'
  return new PayError(`"${typed}" is not a pay command.${guess ? ` Did you mean "${guess}"?` : ''}`, {
    kind: 'usage',
    hint: `See \`${help}\` for the commands there are.`,
  })
}
