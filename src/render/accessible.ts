/**
 * Accessible mode: PAY_ACCESSIBLE=1, or ACCESSIBLE=1 as some tools honour it (any value but
 * empty, 0, false or no). For people who use a screen reader or a braille display: progress is a
 * plain line now and then, never a line redrawn in place (a screen reader reads each redraw
 * again); prompts say their choices in words; colour never carries meaning alone (it never
 * does in pay, in any mode).
 *
 * The run's IO says it (io.accessible, io.canRedraw), from the run's environment.
 */
export function accessibleMode(env: NodeJS.ProcessEnv): boolean {
  return [env.PAY_ACCESSIBLE, env.ACCESSIBLE].some(
    (value) => value !== undefined && !/^(|0|false|no|off)$/i.test(value.trim()),
  )
}

/**
 * Whether a line may be redrawn in place on this terminal: not in accessible mode, and not on
 * a terminal that cannot move the cursor (TERM=dumb, as in Emacs shells).
 */
export function canRedraw(env: NodeJS.ProcessEnv): boolean {
  return !accessibleMode(env) && env.TERM !== 'dumb'
}
