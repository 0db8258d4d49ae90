import { describe, expect, it } from 'vitest'
import { agree, confirmPlan, type Plan } from '../../../src/bulk/consent.js'
import { PayError } from '../../../src/errors.js'
import type { Rec } from '../../../src/values.js'
import { describeLink, LINK_MONEY, LINK_VIEW } from '../../../src/work/links/view.js'
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
    money: LINK_MONEY,
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
        '  l2  Deposit · 1000 JPY · b@example.com  [Active, paid]\n' +
        '  looked up 3: 2 to delete, 1 not found\n' +
        '  total:    25.50 EUR, 1000 JPY\n',
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

  it('looks nothing up with --yes (without --dry-run)', async () => {
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
      [many, { terminal: true }, YES],
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
      totals: [{ amount: 25.5, currency: 'EUR' }],
    })
    expect(dry.io.stderr.text).toBe(
      'Warning: Left out an entry that is not an id: "a b".\n' +
        'Warning: Not found, left out: gone.\n' +
        'About to delete 1 payment link:\n' +
        '  profile:  live\n' +
        '  base URL: https://pay.example\n' +
        '  l1  Invoice 1 · 25.50 EUR · a@example.com  [Active, unpaid]\n' +
        '  looked up 2: 1 to delete, 1 not found\n' +
        '  total:    25.50 EUR\n' +
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
        '  l2  Deposit · 1000 JPY · b@example.com  [Active, paid]\n' +
        '  looked up 2: 1 to delete, 1 not found\n' +
        '  total:    1000 JPY\n',
    )
  })

  it('a dry run of ids none of which exist ends well: nothing to report as failed', async () => {
    const dry = job()
    expect(
      await agree(['gone'], what, { ...dry, consent: { yes: false, dryRun: true } }, lookUp),
    ).toBeUndefined()
    expect(dry.io.stderr.text).toBe(
      'Warning: Not found, left out: gone.\nLooked up 1: 0 to delete, 1 not found.\nDry run: nothing was changed.\n',
    )
  })

  describe('past 20 ids', () => {
    /** 300 subscriptions: every 20th gone, every 10th (5, 15, …) cancelled already; USD and EUR by turns. */
    const many = Array.from({ length: 300 }, (_, i) => `s${i}`)
    const subscriptions = (i: number): Rec => ({
      email: `c${i}@example.com`,
      status: i % 10 === 5 ? 'cancel' : 'created',
      package: { name: 'Starter', amount: i % 2 === 0 ? 120 : 10.1, currency: i % 2 === 0 ? 'USD' : 'EUR' },
    })
    const cancel = {
      action: 'cancel',
      done: 'cancelled',
      view: { ...LINK_VIEW, noun: 'subscription', plural: 'subscriptions' },
    }
    const counting = () => {
      const seen = { fetched: 0, inFlight: 0, most: 0 }
      const lookUpMany = {
        fetch: async (id: string) => {
          seen.fetched += 1
          seen.inFlight += 1
          seen.most = Math.max(seen.most, seen.inFlight)
          await new Promise((resolve) => setImmediate(resolve))
          seen.inFlight -= 1
          const i = Number(id.slice(1))
          if (i % 20 === 0) throw new PayError('Subscription not found.', { kind: 'not_found', status: 404 })
          return subscriptions(i)
        },
        describe: (record: Rec) => String(record.email),
        alreadyDone: (record: Rec) => (record.status === 'cancel' ? 'already_cancelled' : undefined),
        money: {
          of: (record: Rec) => record.package as { amount: unknown; currency: unknown },
          what: "the packages' prices",
        },
      }
      return { seen, lookUpMany }
    }
    // 15 gone (0, 20, …), 30 cancelled already (5, 15, …), 255 to cancel: 135 at 120 USD (the even
    // ones less 15 gone), 120 at 10.10 EUR (the odd ones less 30 cancelled).
    const lookedUp = '  looked up 300: 255 to cancel, 30 already cancelled, 15 not found\n'
    const total = "  total:    1212.00 EUR, 16200.00 USD (the packages' prices)\n"

    it('every id is looked up a few at a time, with a progress bar on a terminal; the plan counts them and adds up the money', async () => {
      const { seen, lookUpMany } = counting()
      const { io, out, target } = job({ terminal: true, width: 400, answers: [true] })
      const agreed = await agree(
        many,
        cancel,
        { io, out, target, consent: NO_FLAGS, concurrency: 3 },
        lookUpMany,
      )
      expect([seen.fetched, seen.most]).toEqual([300, 3])
      expect(agreed?.ids).toHaveLength(255)
      expect(agreed?.skipped.map((entry) => entry.result.status).sort()).toEqual([
        ...Array(30).fill('already_cancelled'),
        ...Array(15).fill('not_found'),
      ])
      expect(io.asked).toEqual(['Cancel 255 subscriptions?'])
      const text = io.stderr.text
      const cleared = '\r\u001b[2K'
      expect(text.startsWith(`Looking up 300 subscriptions for the plan…\n${cleared}[`)).toBe(true)
      expect(text).toContain('████████████████████] 300/300  ')
      const words = text.slice(text.lastIndexOf(cleared) + cleared.length)
      const gone = many.filter((_, i) => i % 20 === 0)
      const done = many.filter((_, i) => i % 10 === 5)
      const ids = agreed?.ids ?? []
      expect(words).toBe(
        `Warning: Not found, left out: ${gone.join(', ')}.\n` +
          `Already cancelled, nothing to do: ${done.slice(0, 20).join(', ')} … and 10 more.\n` +
          'About to cancel 255 subscriptions:\n' +
          '  profile:  live\n' +
          '  base URL: https://pay.example\n' +
          `  ids:      ${ids.slice(0, 20).join(', ')} … and 235 more\n` +
          lookedUp +
          total,
      )
    })

    it('in accessible mode the progress is plain lines; off a terminal none; the plan is the same', async () => {
      const plain = job({ terminal: true, accessible: true, answers: [true] })
      await agree(many, cancel, { ...plain, consent: NO_FLAGS }, counting().lookUpMany)
      expect(plain.io.stderr.text).not.toContain('\r')
      expect(plain.io.stderr.text).toContain('Progress: 300 of 300 (100%): ')
      expect(plain.io.stderr.text).toContain(`${lookedUp}${total}`)

      const dry = job({ json: true })
      await agree(many, cancel, { ...dry, consent: { yes: true, dryRun: true } }, counting().lookUpMany)
      expect(dry.io.stderr.text).not.toContain('Looking up')
      expect(dry.io.stderr.text).not.toContain('Progress')
      expect(dry.io.stderr.text).toContain(`${lookedUp}${total}Dry run: nothing was changed.\n`)
      expect(JSON.parse(dry.io.stdout.text)).toMatchObject({
        already_cancelled: many.filter((_, i) => i % 10 === 5),
        totals: [
          { amount: 1212, currency: 'EUR' },
          { amount: 16200, currency: 'USD' },
        ],
      })
    })

    it('300 cancelled already: a dry run says so, as it does for 5, and asks nothing', async () => {
      const all = {
        ...counting().lookUpMany,
        fetch: async (id: string) => ({ ...subscriptions(Number(id.slice(1))), status: 'cancel' }),
      }
      for (const count of [5, 300]) {
        const dry = job({ terminal: true })
        expect(
          await agree(many.slice(0, count), cancel, { ...dry, consent: { yes: false, dryRun: true } }, all),
        ).toBeUndefined()
        const lines = dry.io.stderr.text.slice(dry.io.stderr.text.lastIndexOf('\u001b[2K') + 1).split('\n')
        expect(dry.io.stderr.text).not.toContain('About to cancel')
        expect(lines.slice(-3)).toEqual([
          `Looked up ${count}: 0 to cancel, ${count} already cancelled, 0 not found.`,
          'Dry run: nothing was changed.',
          '',
        ])
        expect(dry.io.asked).toEqual([])
      }
    })

    it('Ctrl-C while looking up: no new look-up, nothing changed (exit 130)', async () => {
      const { seen, lookUpMany } = counting()
      const { io, out, target } = job({ terminal: true, answers: [true] })
      const interrupting = {
        ...lookUpMany,
        fetch: (id: string) => {
          if (seen.fetched === 40) io.interrupt()
          return lookUpMany.fetch(id)
        },
      }
      const error = await refusal(() =>
        agree(many, cancel, { io, out, target, consent: NO_FLAGS }, interrupting),
      )
      expect([error.message, error.hint, error.exitCode]).toEqual([
        'Cancelled while looking up the subscriptions.',
        'Nothing was cancelled.',
        130,
      ])
      expect(seen.fetched).toBeLessThan(50)
      expect(io.asked).toEqual([])
    })

    it('a service that stops answering stops the look-ups after 10 failures in a row (exit 6)', async () => {
      let fetched = 0
      const down = {
        ...counting().lookUpMany,
        fetch: async () => {
          fetched += 1
          throw new PayError('connection refused', { kind: 'unavailable' })
        },
      }
      const { io, out, target } = job({ terminal: false })
      const error = await refusal(() =>
        agree(many, cancel, { io, out, target, consent: { yes: false, dryRun: true }, concurrency: 1 }, down),
      )
      expect([error.message, error.exitCode]).toEqual([
        'Stopped looking up the subscriptions after 10 failures in a row to reach the service (last: connection refused); nothing was cancelled.',
        6,
      ])
      expect(fetched).toBe(10)
    })
  })
})
