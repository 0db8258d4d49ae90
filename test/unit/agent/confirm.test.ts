import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CONFIRM_TTL_MS, canonical, type Plan, PlanRefused, Plans } from '../../../src/agent/confirm.js'
import { PayError } from '../../../src/errors.js'
import { tempDir } from '../../helpers/cli.js'

/**
 * The plans of pay mcp's deletes and cancels (src/agent/confirm.ts): kept in a private file, so
 * that another pay mcp of the same user confirms them; bound to the tool, the profile and the
 * ids; expiring; used once, by one process alone; each refusal saying its real reason.
 */

const LIVE = { profile: 'live', baseUrl: 'https://api.pay.example' }
const plan = (ids: string[], tool = 'links_delete'): Omit<Plan, 'expires'> => ({
  tool,
  ids,
  profile: LIVE.profile,
  base_url: LIVE.baseUrl,
  records: Object.fromEntries(ids.map((id) => [id, { found: true, paid: false }])),
})

const refusal = (act: () => void): { reason: string; message: string } => {
  try {
    act()
  } catch (error) {
    expect(error).toBeInstanceOf(PlanRefused)
    expect((error as PayError).kind).toBe('usage')
    expect((error as PayError).message).toMatch(/ Nothing was done\.$/)
    return { reason: (error as PlanRefused).reason, message: (error as PayError).message }
  }
  throw new Error('it was not refused')
}

describe('plans', () => {
  it('confirm exactly the tool, the profile and the ids they were made for, in any order; a refusal uses nothing up', () => {
    let now = 1_000_000
    const plans = new Plans(path.join(tempDir('pay-plans-'), 'mcp-plans'), () => now)
    const { confirm, expiresAt } = plans.issue(plan(['a', 'b']))
    expect(confirm).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect(expiresAt).toBe(new Date(1_000_000 + CONFIRM_TTL_MS).toISOString())
    expect(refusal(() => plans.open(confirm, 'links_delete', ['a'], LIVE))).toEqual({
      reason: 'other_ids',
      message:
        "This confirm string is for other ids: this call leaves out 1 of its 2 (b). Give the plan's ids, each once. Nothing was done.",
    })
    expect(
      refusal(() => plans.open(confirm, 'links_delete', ['a', 'b', 'c', 'd', 'e', 'f'], LIVE)).message,
    ).toBe(
      "This confirm string is for other ids: this call adds 4 it does not have (c, d, e and 1 more). Give the plan's ids, each once. Nothing was done.",
    )
    expect(refusal(() => plans.open(confirm, 'subs_delete', ['a', 'b'], LIVE))).toEqual({
      reason: 'other_tool',
      message: 'This confirm string is for a plan of links_delete, not subs_delete. Nothing was done.',
    })
    expect(
      refusal(() =>
        plans.open(confirm, 'links_delete', ['a', 'b'], { profile: 'sandbox', baseUrl: LIVE.baseUrl }),
      ),
    ).toEqual({
      reason: 'other_profile',
      message:
        'This confirm string is for a plan on profile "live" at https://api.pay.example; this server acts on profile "sandbox" at https://api.pay.example. Nothing was done.',
    })
    for (const made of ['made up', `${confirm}x`, 'A'.repeat(24)])
      expect(refusal(() => plans.open(made, 'links_delete', ['a', 'b'], LIVE))).toEqual({
        reason: 'unknown',
        message:
          'This confirm string is not one pay mcp made for you (or its plan was cleared, a day after it expired). Nothing was done.',
      })
    // None of those used it up; the order of the ids is not theirs to bind.
    expect(plans.open(confirm, 'links_delete', ['b', 'a'], LIVE)).toMatchObject({
      ids: ['a', 'b'],
      records: { a: { found: true, paid: false } },
      expires: 1_000_000 + CONFIRM_TTL_MS,
    })
    plans.use(confirm)
    expect(refusal(() => plans.open(confirm, 'links_delete', ['a', 'b'], LIVE))).toEqual({
      reason: 'used',
      message: 'This confirm string was used already: it confirms one action. Nothing was done.',
    })
    expect(refusal(() => plans.use(confirm)).reason).toBe('used')

    const later = plans.issue(plan(['c']))
    now += CONFIRM_TTL_MS + 1
    expect(refusal(() => plans.open(later.confirm, 'links_delete', ['c'], LIVE))).toEqual({
      reason: 'expired',
      message: `This confirm string expired at ${later.expiresAt} (a plan may be confirmed for 10 minutes). Nothing was done.`,
    })
    const replaced = plans.issue(plan(['d']))
    plans.use(replaced.confirm, 'changed')
    expect(refusal(() => plans.open(replaced.confirm, 'links_delete', ['d'], LIVE))).toEqual({
      reason: 'changed',
      message:
        "This confirm string's plan was replaced: its records changed before it was confirmed, and a new plan was answered. Nothing was done.",
    })
  })

  it('are kept for the user alone: 0600 files in a 0700 directory, a looser one tightened', () => {
    const dir = path.join(tempDir('pay-plans-'), 'config', 'mcp-plans')
    const plans = new Plans(dir, () => 0)
    plans.issue(plan(['a']))
    if (process.platform === 'win32') return
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    const [file] = fs.readdirSync(dir)
    expect(file).toMatch(/^[A-Za-z0-9_-]{43}\.plan$/)
    expect(fs.statSync(path.join(dir, file)).mode & 0o777).toBe(0o600)
    // The confirm string is in no file's name or text: only its hash names the file.
    fs.chmodSync(dir, 0o755)
    const { confirm } = plans.issue(plan(['b']))
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    for (const name of fs.readdirSync(dir)) {
      expect(name).not.toContain(confirm)
      expect(fs.readFileSync(path.join(dir, name), 'utf8')).not.toContain(confirm)
    }
  })

  it('never go through a symbolic link: a linked directory is refused, a linked plan file is not read', () => {
    const root = tempDir('pay-plans-')
    const elsewhere = tempDir('pay-plans-elsewhere-')
    fs.symlinkSync(elsewhere, path.join(root, 'mcp-plans'))
    let refused: unknown
    try {
      new Plans(path.join(root, 'mcp-plans'), () => 0).issue(plan(['a']))
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(PayError)
    expect((refused as PayError).message).toBe(
      `pay mcp cannot keep its plans: ${path.join(root, 'mcp-plans')} is a symbolic link (pay does not follow one).`,
    )
    expect(fs.readdirSync(elsewhere)).toEqual([])

    // A plan file swapped for a link to a plan of the attacker's making is not one pay made.
    const dir = path.join(tempDir('pay-plans-'), 'mcp-plans')
    const plans = new Plans(dir, () => 0)
    const { confirm } = plans.issue(plan(['a']))
    const [file] = fs.readdirSync(dir)
    const planted = path.join(elsewhere, 'planted.json')
    fs.writeFileSync(planted, fs.readFileSync(path.join(dir, file)))
    fs.rmSync(path.join(dir, file))
    fs.symlinkSync(planted, path.join(dir, file))
    expect(refusal(() => plans.open(confirm, 'links_delete', ['a'], LIVE)).reason).toBe('unknown')
  })

  it('made by one server are confirmed by another of the same user, once: the second to use one is refused', () => {
    const dir = path.join(tempDir('pay-plans-'), 'mcp-plans')
    const first = new Plans(dir, () => 0)
    const second = new Plans(dir, () => 1000)
    const third = new Plans(dir, () => 2000)
    const { confirm } = first.issue(plan(['a']))
    // Both read it before either acts: only one rename can win.
    second.open(confirm, 'links_delete', ['a'], LIVE)
    third.open(confirm, 'links_delete', ['a'], LIVE)
    second.use(confirm)
    expect(refusal(() => third.use(confirm)).reason).toBe('used')
    expect(refusal(() => first.open(confirm, 'links_delete', ['a'], LIVE)).reason).toBe('used')
  })

  it('are cleared a day after they expired; until then a refusal still says why', () => {
    let now = 0
    const dir = path.join(tempDir('pay-plans-'), 'mcp-plans')
    const plans = new Plans(dir, () => now)
    const old = plans.issue(plan(['a']))
    plans.use(old.confirm)
    now = CONFIRM_TTL_MS + 24 * 60 * 60 * 1000
    plans.issue(plan(['c']))
    expect(fs.readdirSync(dir)).toHaveLength(2)
    now += 1
    const recent = plans.issue(plan(['b']))
    expect(fs.readdirSync(dir)).toHaveLength(2)
    expect(refusal(() => plans.open(old.confirm, 'links_delete', ['a'], LIVE)).reason).toBe('unknown')
    expect(plans.open(recent.confirm, 'links_delete', ['b'], LIVE).ids).toEqual(['b'])
  })

  it('bind the arguments’ meaning, whatever the order of their keys', () => {
    expect(canonical({ b: 1, a: [2, { d: 'x', c: null }] })).toBe('{"a":[2,{"c":null,"d":"x"}],"b":1}')
    expect(canonical({ a: undefined, b: 'é' })).toBe('{"b":"é"}')
  })
})
