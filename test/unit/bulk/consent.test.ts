import { describe, expect, it } from 'vitest'
import { agree, confirmPlan, type Plan } from '../../../src/bulk/consent.js'
import { PayError } from '../../../src/errors.js'
import type { Rec } from '../../../src/values.js'
import { describeLink, LINK_VIEW } from '../../../src/work/links/view.js'
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

const NO_FLAGS = { yes: false, dryRun: false }
const YES = { yes: true, dryRun: false }

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
    expect([error.message, error.hint, error.exitCode]).toEqual(['Cancelled.', 'Nothing was deleted.', 130])
  })

  it('refuses off a terminal without --yes (exit 2), asking nothing', async () => {
    const { io, out } = testOutput({ terminal: false })
    const error = await refusal(() => confirmPlan(plan(['l1']), { yes: false, dryRun: false }, out, io))
    expect([error.message, error.hint, error.exitCode]).toEqual([
      'Refusing to delete without confirmation: there is no terminal to confirm on.',
      'Pass --yes to confirm, or --dry-run to see the plan. Nothing was changed.',
      2,
    ])
    expect(io.asked).toEqual([])
  })

  it('asks on the terminal behind a pipe (stdin is data, a person is at the terminal)', async () => {
    const { io, out } = testOutput({ terminal: false, terminalBehindPipe: true, answers: [true] })
    expect(await confirmPlan(plan(['l1']), { yes: false, dryRun: false }, out, io)).toBe(true)
    expect(io.asked).toEqual(['Delete 1 payment link?'])
  })

  it('goes on with --yes without asking, terminal or not', async () => {
    for (const terminal of [true, false]) {
      const { io, out } = testOutput({ terminal })
      expect(await confirmPlan(plan(['l1', 'l2']), { yes: true, dryRun: false }, out, io)).toBe(true)
      expect(io.asked).toEqual([])
    }
  })

  it('--dry-run shows the plan (as JSON with --json) and says nothing was changed', async () => {
    const { io, out } = testOutput({ json: true })
    expect(await confirmPlan(plan(['l1', 'l2']), { yes: true, dryRun: true }, out, io)).toBe(false)
    expect(JSON.parse(io.stdout.text)).toEqual({
      dry_run: true,
      action: 'delete',
      profile: 'live',
      base_url: 'https://pay.example',
      ids: ['l1', 'l2'],
    })
    expect(io.stderr.text).toBe(`${PLAN_TEXT}Dry run: nothing was changed.\n`)
  })

  it('names 20 ids at most, and shows ids from a file in caret notation', async () => {
    const ids = ['bad\u001b[2Jid', ...Array.from({ length: 24 }, (_, i) => `id${i}`)]
    const { io, out } = testOutput()
    await confirmPlan(plan(ids), { yes: true, dryRun: false }, out, io)
    expect(io.stderr.text).toContain(`  ids:      bad^[[2Jid, ${ids.slice(1, 20).join(', ')} … and 5 more\n`)
  })
})

describe('agree', () => {
  const job = (options: Parameters<typeof testOutput>[0] = {}) => {
    const { io, out } = testOutput(options)
    return { io, out, target: { profile: 'live', baseUrl: 'https://pay.example' } }
  }
  const what = { action: 'delete', done: 'deleted', view: LINK_VIEW }
  const links: Record<string, Rec> = {
    l1: {
      title: 'Invoice 1',
      amount: 25.5,
      currency: 'EUR',
      email: 'a@example.com',
      status: 'Active',
      paid: false,
    },
    l2: {
      title: 'Deposit',
      amount: 1000,
      currency: 'JPY',
      email: 'b@example.com',
      status: 'Active',
      paid: true,
    },
  }
  const lookUp = {
    fetch: async (id: string) => {
      if (links[id]) return links[id]
      throw new PayError('Payment link not found.', { kind: 'not_found', status: 404 })
    },
    describe: describeLink,
  }

  it('on a terminal, describes what exists, leaves out what does not, and asks about the rest only', async () => {
    const { io, out, target } = job({ terminal: true, answers: [true] })
    const agreed = await agree(['l1', 'gone', 'l2'], what, { io, out, target, consent: NO_FLAGS }, lookUp)
    expect(agreed?.ids).toEqual(['l1', 'l2'])
    expect(agreed?.skipped.map((entry) => entry.result)).toEqual([
      { id: 'gone', ok: false, status: 'not_found', error: 'Payment link not found.' },
    ])
    expect(io.asked).toEqual(['Delete 2 payment links?'])
    expect(io.stderr.text).toBe(
      'Warning: Not found, left out: gone.\n' +
        'About to delete 2 payment links:\n' +
        '  profile:  live\n' +
        '  base URL: https://pay.example\n' +
        '  l1  Invoice 1 · 25.50 EUR · a@example.com  [Active, unpaid]\n' +
        '  l2  Deposit · 1000 JPY · b@example.com  [Active, paid]\n',
    )
  })

  it('asks nothing when nothing is left to act on', async () => {
    const { io, out, target } = job({ terminal: true })
    const agreed = await agree(['gone'], what, { io, out, target, consent: NO_FLAGS }, lookUp)
    expect([agreed?.ids, io.asked]).toEqual([[], []])
  })

  it('leaves out entries that cannot be ids, and sends nothing for them', async () => {
    const { io, out, target } = job()
    const agreed = await agree(['l1', 'a b', 'x,y', '"q"'], what, { io, out, target, consent: YES }, lookUp)
    expect(agreed?.ids).toEqual(['l1'])
    expect(
      agreed?.skipped.map((entry) => [entry.result.id, entry.result.status, entry.result.error]),
    ).toEqual([
      ['a b', 'invalid', 'not an id: it contains a space'],
      ['x,y', 'invalid', 'not an id: it contains a comma (one id per line)'],
      ['"q"', 'invalid', 'not an id: it contains a quote'],
    ])
    expect(io.stderr.text.split('\n')[0]).toBe(
      'Warning: Left out 3 entries that are not ids: "a b", "x,y", "\\"q\\"".',
    )
  })

  it('looks nothing up with --yes (without --dry-run), or past 20 ids', async () => {
    let fetched = 0
    const counting = {
      ...lookUp,
      fetch: (id: string) => {
        fetched += 1
        return lookUp.fetch(id)
      },
    }
    const many = Array.from({ length: 21 }, (_, i) => `l${i}`)
    for (const [ids, options, consent] of [
      [['l1', 'gone'], { terminal: true }, YES],
      [['l1', 'gone'], { terminal: false }, YES],
      [many, { terminal: true, answers: [true] }, NO_FLAGS],
    ] as const) {
      const { io, out, target } = job(options)
      const agreed = await agree([...ids], what, { io, out, target, consent }, counting)
      expect(agreed?.ids).toEqual([...ids])
    }
    expect(fetched).toBe(0)
  })

  it('--dry-run and the refusal off a terminal describe what exists and name what was not found', async () => {
    const dry = job({ json: true })
    const planned = await agree(
      ['l1', 'gone', 'a b'],
      what,
      { ...dry, consent: { yes: true, dryRun: true } },
      lookUp,
    )
    expect(planned).toBeUndefined()
    expect(JSON.parse(dry.io.stdout.text)).toEqual({
      dry_run: true,
      action: 'delete',
      profile: 'live',
      base_url: 'https://pay.example',
      ids: ['l1'],
      not_found: ['gone'],
      invalid: ['a b'],
    })
    expect(dry.io.stderr.text).toBe(
      'Warning: Left out an entry that is not an id: "a b".\n' +
        'Warning: Not found, left out: gone.\n' +
        'About to delete 1 payment link:\n' +
        '  profile:  live\n' +
        '  base URL: https://pay.example\n' +
        '  l1  Invoice 1 · 25.50 EUR · a@example.com  [Active, unpaid]\n' +
        'Dry run: nothing was changed.\n',
    )

    const off = job({ terminal: false })
    const error = await refusal(() => agree(['gone', 'l2'], what, { ...off, consent: NO_FLAGS }, lookUp))
    expect(error.exitCode).toBe(2)
    expect(off.io.stderr.text).toBe(
      'Warning: Not found, left out: gone.\n' +
        'About to delete 1 payment link:\n' +
        '  profile:  live\n' +
        '  base URL: https://pay.example\n' +
        '  l2  Deposit · 1000 JPY · b@example.com  [Active, paid]\n',
    )
  })

  it('a dry run of ids none of which exist ends well: nothing to report as failed', async () => {
    const dry = job()
    expect(
      await agree(['gone'], what, { ...dry, consent: { yes: false, dryRun: true } }, lookUp),
    ).toBeUndefined()
    expect(dry.io.stderr.text).toBe('Warning: Not found, left out: gone.\nDry run: nothing was changed.\n')
  })
})
