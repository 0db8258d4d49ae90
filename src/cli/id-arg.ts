import { Args, Flags } from '@oclif/core'
import { idProblem, normalizeId } from '../bulk/id-text.js'
import { usageError } from '../errors.js'

/** An id as it was typed or pasted, read as normalizeId reads it; what cannot be one is exit 2. */
async function idOf(input: string): Promise<string> {
  const id = normalizeId(input)
  const problem = idProblem(id)
  if (problem) throw usageError(`${JSON.stringify(input)} is not an id: ${problem}.`)
  return id
}

const ID = Args.custom<string>({ ignoreStdin: true, parse: idOf })

/**
 * The ID argument of every command that acts on one record (`links get|wait|update|open|qr`,
 * `subs get|update`, `sandbox pay`): trimmed, out of the quotes or angle brackets it was pasted
 * in, taken out of a payment URL (`…/checkout/pay?id=ID`), hex lower-cased, as normalizeId reads
 * it; what cannot be an id (idProblem) is a usage error (exit 2), before anything is sent.
 */
export const idArg = (description: string) => ID({ description, required: true })

/** A flag that names a record by its id (`sandbox webhooks deliveries --link`), read as idArg reads it. */
export const idFlag = Flags.custom<string>({ parse: idOf, helpValue: 'ID' })
