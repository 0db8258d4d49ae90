import { PayError } from '../errors.js'
import type { Output } from '../render/output.js'
import type { IO } from './io.js'

/**
 * A stop for a command that goes on until something ends it (Ctrl-C, a deadline): `stopped`
 * never resolves and rejects with the error given to `stop`, so racing it against each step
 * ends the loop with that error. It is never left unhandled: only a race ever sees it.
 */
export function stopper(): { stopped: Promise<never>; stop: (error: PayError) => void } {
  let stop!: (error: PayError) => void
  const stopped = new Promise<never>((_, reject) => {
    stop = reject
  })
  stopped.catch(() => {})
  return { stopped, stop }
}

/** The stop of a `--follow`: Ctrl-C ends it (exit 130); `stopListening` when it ends otherwise. */
export function followStopper(io: IO, out: Output): { stopped: Promise<never>; stopListening: () => void } {
  const { stopped, stop } = stopper()
  const stopListening = io.onInterrupt(() => {
    // On a terminal, Ctrl-C left "^C" where the cursor was: the message starts below it.
    if (io.stderrIsTerminal) out.stderr.write('\n')
    stop(new PayError('Stopped following.', { kind: 'cancelled' }))
  })
  return { stopped, stopListening }
}
