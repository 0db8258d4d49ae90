import type { Hook } from '@oclif/core'
import { PayError } from '../errors.js'
import { Output } from '../render/output.js'
import { commandIO } from './io.js'
import { closest } from './suggest.js'

/**
 * A mistyped command, on a terminal or not: one error in pay's format naming the command it
 * most likely meant, exit 2 (oclif's plugin-not-found exits 127 and only suggests on a TTY).
 */
const commandNotFound: Hook<'command_not_found'> = async (options) => {
  // oclif puts every word before the first flag in the id (`subs rm ID1 ID2`): the command typed
  // is a topic and one more word, or a mistyped topic and the word after it, or one word.
  const words = options.id.split(':')
  const topic = options.config.findTopic(words[0])
  const commands = options.config.commands
    .filter((command) => !command.hidden)
    .flatMap((command) => [command.id, ...command.aliases])
    .map((id) => id.replace(/:/g, ' '))
  const twoWords = words.slice(0, 2).join(' ')
  const guessOfTwo = words.length > 1 ? closest(twoWords, commands) : undefined
  const typed = topic || guessOfTwo ? twoWords : words[0]
  const guess = topic ? closest(typed, commands) : (guessOfTwo ?? closest(typed, commands))
  const help = topic ? `pay ${topic.name} --help` : 'pay --help'
  const error = new PayError(`"${typed}" is not a pay command.${guess ? ` Did you mean "${guess}"?` : ''}`, {
    kind: 'usage',
    hint: `See \`${help}\` for the commands there are.`,
  })
  new Output(commandIO(), { json: (options.argv ?? []).includes('--json') }).error(error)
  // Printed already: oclif must only exit, with this code.
  throw Object.assign(new Error(error.message), {
    skipOclifErrorHandling: true,
    oclif: { exit: error.exitCode },
  })
}

export default commandNotFound
