import type { Target } from '../cli/base-command.js'
import type { IO } from '../cli/io.js'
import { PayError } from '../errors.js'
import type { Output } from '../render/output.js'
import { sanitizeText } from '../values.js'

export interface Plan {
  /** "delete", "cancel" */
  action: string
  /** "deleted", "cancelled" */
  done: string
  /** "payment link" / "payment links" */
  noun: string
  plural: string
  ids: string[]
  target: Target
  /** Extra lines shown under the summary (e.g. what each subscription is). */
  details?: string[]
  irreversible?: boolean
}

/** --yes and --dry-run, as given. */
export interface Consent {
  yes: boolean
  dryRun: boolean
}

const MAX_IDS_SHOWN = 20

/**
 * Shows what a destructive command will act on, then: --dry-run stops, --yes goes on, a
 * terminal asks, anything else refuses (exit 2) before a single request is sent.
 * Returns false when nothing is to be done (dry run).
 */
export async function confirmPlan(plan: Plan, consent: Consent, out: Output, io: IO): Promise<boolean> {
  const count = plan.ids.length
  const noun = count === 1 ? plan.noun : plan.plural
  // Ids may come from a file: shown in caret notation, like any text that reaches the terminal.
  const shown = plan.ids.slice(0, MAX_IDS_SHOWN).map(sanitizeText).join(', ')
  const more = count > MAX_IDS_SHOWN ? ` … and ${count - MAX_IDS_SHOWN} more` : ''
  const lines = [
    `About to ${plan.action} ${count} ${noun}:`,
    `  profile:  ${plan.target.profile}`,
    `  base URL: ${plan.target.baseUrl}`,
    `  ids:      ${shown}${more}`,
    ...(plan.details ?? []),
  ]
  if (plan.irreversible) lines.push('This cannot be undone.')
  out.stderr.write(`${lines.join('\n')}\n`)

  if (consent.dryRun) {
    if (out.json) {
      out.data({
        dry_run: true,
        action: plan.action,
        profile: plan.target.profile,
        base_url: plan.target.baseUrl,
        ids: plan.ids,
      })
    }
    out.stderr.write('Dry run: nothing was sent.\n')
    return false
  }
  if (consent.yes) return true
  if (!io.canPrompt) {
    throw new PayError(`Refusing to ${plan.action} without confirmation: not on a terminal.`, {
      kind: 'usage',
      hint: 'Pass --yes to confirm, or --dry-run to see the plan. Nothing was sent.',
    })
  }
  // Declining (or Ctrl-C at the question) is "cancelled", exit 130.
  if (!(await io.confirm(`${capitalise(plan.action)} ${count} ${noun}?`))) {
    throw new PayError(`Cancelled; nothing was ${plan.done}.`, { kind: 'cancelled' })
  }
  return true
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
