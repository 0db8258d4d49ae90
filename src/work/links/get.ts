import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'
import { sendTo } from '../common/send.js'

/** `links get`: the payment link. */
export const showLink = (options: { id: string }, context: RunContext): Promise<Rec> =>
  sendTo('getLink', { id: options.id }, context)
