import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { seedSubscriptions, serverStatuses } from '../../helpers/subs.js'

/**
 * Ids as support staff paste them into every command that takes one: the payment URL from the
 * customer's e-mail, an id with spaces around it, an id in capitals.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })
const forms = (id: string) => [
  `${sandbox.baseUrl}/checkout/pay?id=${id}`,
  `  ${id}\t`,
  id.toUpperCase(),
  `https://pay.example/checkout/pay?lang=en&id=${id.toUpperCase()}`,
]

describe.concurrent('one id, pasted', () => {
  test('links get, update and open take a payment URL, spaces and capitals', async () => {
    const link = await seedLink(sandbox)
    for (const form of forms(link._id)) {
      const [get, update, open] = await Promise.all([
        pay('links', 'get', form, '-q'),
        pay('links', 'update', form, '--title', 'Pasted', '-q'),
        pay('links', 'open', form, '--no-browser'),
      ])
      expect([get.code, get.stdout]).toEqual([0, `${link._id}\n`])
      expect([update.code, update.stdout]).toEqual([0, `${link._id}\n`])
      expect([open.code, open.stdout]).toEqual([0, `${link.payment_url}\n`])
    }
    expect((await storedLink(sandbox, link._id)).title).toBe('Pasted')
  })

  test('subs get and update, and sandbox pay, likewise', async () => {
    const [sub] = await seedSubscriptions(sandbox, 1, { prefix: 'pasted-one' })
    for (const form of [`  ${sub}  `, sub.toUpperCase()]) {
      const get = await pay('subs', 'get', form, '-q')
      expect([get.code, get.stdout]).toEqual([0, `${sub}\n`])
      const update = await pay('subs', 'update', form, '--phone', '+2348000000000', '-q')
      expect([update.code, update.stdout]).toEqual([0, `${sub}\n`])
    }
    const link = await seedLink(sandbox)
    const paid = await runCli(
      ['sandbox', 'pay', `${sandbox.baseUrl}/checkout/pay?id=${link._id.toUpperCase()}`, '--json'],
      {
        // The sandbox's own PAY_SANDBOX_DIR: it proves to pay that it is the user's.
        env: sandbox.env,
      },
    )
    expect(paid.code).toBe(0)
    expect(JSON.parse(paid.stdout)).toMatchObject({ outcome: 'paid', link: { _id: link._id, paid: true } })
  })

  test('bulk commands take them too: links delete, subs cancel, subs delete', async () => {
    const [a, b] = [await seedLink(sandbox), await seedLink(sandbox)]
    const deleted = await pay(
      'links',
      'delete',
      `${sandbox.baseUrl}/checkout/pay?id=${a._id}`,
      ` ${b._id.toUpperCase()} `,
      '--yes',
      '-q',
    )
    expect([deleted.code, deleted.stdout]).toEqual([0, `${a._id}\n${b._id}\n`])
    const [c, d] = await seedSubscriptions(sandbox, 2, { prefix: 'pasted-bulk' })
    const cancelled = await pay('subs', 'cancel', c.toUpperCase(), '--yes', '-q')
    expect([cancelled.code, cancelled.stdout]).toEqual([0, `${c}\n`])
    const removed = await pay('subs', 'delete', ` ${d} `, '--yes', '-q')
    expect([removed.code, removed.stdout]).toEqual([0, `${d}\n`])
    const statuses = await serverStatuses(sandbox)
    expect([statuses.get(c), statuses.has(d)]).toEqual(['cancel', false])
  })

  test('every command that takes an id reads one pasted in quotes or angle brackets', async () => {
    const link = await seedLink(sandbox)
    await sandbox.markPaid(link._id)
    const quoted = `"${link._id}"`
    const bracketed = `<${sandbox.baseUrl}/checkout/pay?id=${link._id.toUpperCase()}>`
    const runs = await Promise.all([
      pay('links', 'get', quoted, '-q'),
      pay('links', 'wait', bracketed, '-q'),
      pay('links', 'open', `'${link._id}'`, '--no-browser'),
      pay('links', 'qr', bracketed, '--json'),
      pay('links', 'update', `\u201c${link._id}\u201d`, '--title', 'Quoted', '--yes', '-q'),
    ])
    expect(runs.map((run) => [run.code, run.stderr.replace(/ \(10\.00 EUR\);.*\n/, '')])).toEqual([
      ...Array(4).fill([0, '']),
      [0, `Warning: Payment link ${link._id} is already paid`],
    ])
    expect(runs[1].stdout).toBe(`${link._id}\n`)
    expect(JSON.parse(runs[3].stdout)).toEqual({ _id: link._id, payment_url: link.payment_url })
    expect((await storedLink(sandbox, link._id)).title).toBe('Quoted')
    const [sub, gone] = await seedSubscriptions(sandbox, 2, { prefix: 'pasted-quoted' })
    const subs = [
      await pay('subs', 'get', `"${sub}"`, '-q'),
      await pay('subs', 'update', `<${sub}>`, '--phone', '+2348000000001', '-q'),
      await pay('subs', 'cancel', `'${sub}'`, '--yes', '-q'),
      await pay('subs', 'delete', `"<${gone}>"`, '--yes', '-q'),
      await pay('links', 'delete', quoted, '--yes', '-q'),
    ]
    expect(subs.map((run) => [run.code, run.stdout])).toEqual([
      [0, `${sub}\n`],
      [0, `${sub}\n`],
      [0, `${sub}\n`],
      [0, `${gone}\n`],
      [0, `${link._id}\n`],
    ])
    expect(await storedLink(sandbox, link._id)).toBeUndefined()
  })

  test('text that is no id, as the argument of a command that takes one: exit 2 saying why, nothing sent', async () => {
    const env = { PAY_API_KEY: sandbox.key, PAY_BASE_URL: 'http://127.0.0.1:9' }
    const single = [
      ['links', 'wait'],
      ['links', 'open'],
      ['links', 'qr'],
      ['subs', 'get'],
      ['links', 'update'],
    ]
    const runs = await Promise.all(single.map((command) => runCli([...command, `"ID" "ID"`], { env })))
    for (const run of runs) {
      expect([run.code, run.stdout, run.stderr]).toEqual([
        2,
        '',
        'Error: "\\"ID\\" \\"ID\\"" is not an id: it contains a space.\n',
      ])
    }
  })

  test('a URL with no id in it is a usage error (exit 2), before any request', async () => {
    const result = await runCli(['links', 'get', 'https://pay.example/checkout/pay'], {
      env: { PAY_API_KEY: sandbox.key, PAY_BASE_URL: 'http://127.0.0.1:9' },
    })
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: "https://pay.example/checkout/pay" is not an id: a URL without an id (a payment_url carries ?id=…).\n',
    })
  })
})
