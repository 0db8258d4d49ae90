import { describe, expect, it } from 'vitest'
import { confirmPlan, type Plan } from '../../../src/bulk/consent.js'
import { PayError } from '../../../src/errors.js'
import { testOutput } from '../../helpers/io.js'

const plan = (ids: string[]): Plan => ({
  action: 'delete',
  done: 'deleted',
  noun: 'payment link',
  plural: 'payment links',
  ids,
  target: { profile: 'live', baseUrl: 'https://pay.example' },
  irreversible: true,
})

const PLAN_TEXT =
  'About to delete 2 payment links:\n' +
  '  profile:  live\n' +
  '  base URL: https://pay.example\n' +
  '  ids:      l1, l2\n' +
  'This cannot be undone.\n'

async function refusal(run: () => Promise<unknown>): Promise<PayError> {
  const error = await run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(PayError)
  return error as PayError
}

describe('confirmPlan', () => {
  it('asks on a terminal, and goes on when the answer is yes', async () => {
    const { io, out } = testOutput({ terminal: true, answers: [true] })
    expect(await confirmPlan(plan(['l1', 'l2']), { yes: false, dryRun: false }, out, io)).toBe(true)
    expect(io.asked).toEqual(['Delete 2 payment links?'])
    expect(io.stderr.text).toBe(PLAN_TEXT)
    expect(io.stdout.text).toBe('')
  })

  it('is "cancelled" (exit 130) when the answer is no', async () => {
    const { io, out } = testOutput({ terminal: true, answers: [false] })
    const error = await refusal(() => confirmPlan(plan(['l1']), { yes: false, dryRun: false }, out, io))
    expect([error.message, error.exitCode]).toEqual(['Cancelled; nothing was deleted.', 130])
  })

  it('refuses off a terminal without --yes (exit 2), asking nothing', async () => {
    const { io, out } = testOutput({ terminal: false })
    const error = await refusal(() => confirmPlan(plan(['l1']), { yes: false, dryRun: false }, out, io))
    expect([error.message, error.hint, error.exitCode]).toEqual([
      'Refusing to delete without confirmation: not on a terminal.',
      'Pass --yes to confirm, or --dry-run to see the plan. Nothing was sent.',
      2,
    ])
    expect(io.asked).toEqual([])
  })

  it('goes on with --yes without asking, terminal or not', async () => {
    for (const terminal of [true, false]) {
      const { io, out } = testOutput({ terminal })
      expect(await confirmPlan(plan(['l1', 'l2']), { yes: true, dryRun: false }, out, io)).toBe(true)
      expect(io.asked).toEqual([])
    }
  })

  it('--dry-run shows the plan (as JSON with --json) and says nothing was sent', async () => {
    const { io, out } = testOutput({ json: true })
    expect(await confirmPlan(plan(['l1', 'l2']), { yes: true, dryRun: true }, out, io)).toBe(false)
    expect(JSON.parse(io.stdout.text)).toEqual({
      dry_run: true,
      action: 'delete',
      profile: 'live',
      base_url: 'https://pay.example',
      ids: ['l1', 'l2'],
    })
    expect(io.stderr.text).toBe(`${PLAN_TEXT}Dry run: nothing was sent.\n`)
  })

  it('names 20 ids at most, and shows ids from a file in caret notation', async () => {
    const ids = ['bad\u001b[2Jid', ...Array.from({ length: 24 }, (_, i) => `id${i}`)]
    const { io, out } = testOutput()
    await confirmPlan(plan(ids), { yes: true, dryRun: false }, out, io)
    expect(io.stderr.text).toContain(`  ids:      bad^[[2Jid, ${ids.slice(1, 20).join(', ')} … and 5 more\n`)
  })
})
