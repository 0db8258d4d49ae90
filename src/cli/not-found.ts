import type { Hook } from '@oclif/core'
import { PayError } from '../errors.js'
import { Output } from '../render/output.js'
import { ProcessIO } from './io.js'
import { closest } from './suggest.js'

/**
 * A mistyped command, on a terminal or not: one error in pay's format naming the command it
 * most likely meant, exit 2 (oclif's plugin-not-found exits 127 and only suggests on a TTY).
 */
const commandNotFound: Hook<'command_not_found'> = async (options) => {
  const typed = options.id.replace(/:/g, ' ')
  const commands = options.config.commands
    .filter((command) => !command.hidden)
    .flatMap((command) => [command.id, ...command.aliases])
    .map((id) => id.replace(/:/g, ' '))
  const guess = closest(typed, commands)
  const topic = options.config.findTopic(options.id.split(':')[0])
  const help = topic ? `pay ${topic.name} --help` : 'pay --help'
  const error = new PayError(`"${typed}" is not a pay command.${guess ? ` Did you mean "${guess}"?` : ''}`, {
    kind: 'usage',
    hint: `See \`${help}\` for the commands there are.`,
  })
  new Output(new ProcessIO(), { json: (options.argv ?? []).includes('--json') }).error(error)
  // Printed already: oclif must only exit, with this code.
  throw Object.assign(new Error(error.message), {
    skipOclifErrorHandling: true,
    oclif: { exit: error.exitCode },
  })
}

export default commandNotFound
