import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { serverStatuses } from '../../helpers/subs.js'

/**
 * Values that used to go wrong quietly (issue 23 item 9): a redirect URL the customer never gets
 * back from, the status word pay itself prints, a currency change a link's amount cannot take, a
 * currency in lower case. Each refused locally (exit 3, under the flag, nothing sent) or sent as
 * the service spells it.
 */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })

/** The links the sandbox holds for this customer e-mail. */
const linksFor = async (email: string) => {
  const answer = await sandbox.request('GET', '/payment-links?per_page=500')
  return (answer.body.data.data as { email: string }[]).filter((link) => link.email === email)
}

const createWith = (email: string, ...more: string[]) =>
  pay('links', 'create', '--email', email, '--currency', 'EUR', '--amount', '5', '--title', 'T', ...more)

describe('--redirect-url', () => {
  test.each([
    ['shop.example/back'],
    ['not a url'],
    ['javascript:alert(document.cookie)'],
    ['ftp://shop.example/back'],
    ['https://'],
  ])('%s: refused under the flag, exit 3, nothing created', async (url) => {
    const email = `redirect-${Buffer.from(url).toString('hex').slice(0, 12)}@example.com`
    const result = await createWith(email, '--redirect-url', url)
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n' +
        '  --redirect-url  The redirect_url must be an absolute http:// or https:// URL, like https://shop.example/thanks.\n',
    })
    expect(await linksFor(email)).toEqual([])
  })

  test('an absolute http(s) URL is sent as typed, for links and tokens', async () => {
    const link = await createWith(
      'redirect-ok@example.com',
      '--redirect-url',
      'https://shop.example/thanks?o=7',
      '--jq',
      '._id',
    )
    expect(link.code).toBe(0)
    expect(await storedLink(sandbox, link.stdout.trim())).toMatchObject({
      redirect_url: 'https://shop.example/thanks?o=7',
    })
    const token = await pay(
      ...['token', 'create', '--email', 't@example.com', '--title', 'T', '--description', 'D'],
      ...['--redirect-url', 'javascript:alert(1)'],
    )
    expect(token).toMatchObject({ code: 3, stdout: '' })
    expect(token.stderr).toContain(
      '  --redirect-url  The redirect_url must be an absolute http:// or https:// URL',
    )
  })
})

describe('currencies', () => {
  test('a lower-case currency is sent in capitals, so that totals by currency add up', async () => {
    const result = await pay(
      ...['links', 'create', '--email', 'usd@example.com', '--currency', 'usd'],
      ...['--amount', '7', '--title', 'Lower', '--jq', '._id'],
    )
    expect(result.code).toBe(0)
    expect(await storedLink(sandbox, result.stdout.trim())).toMatchObject({ currency: 'USD', amount: 7 })
  })

  test('links update --currency JPY of a 10.50 EUR link: the link’s amount is the problem, said under --currency', async () => {
    const link = await seedLink(sandbox, { amount: '10.50', currency: 'EUR', title: 'To yen' })
    const result = await pay('links', 'update', link._id, '--currency', 'JPY')
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n' +
        "  --currency  The link's amount, 10.5, has decimals JPY does not allow (no decimals): give a new --amount with --currency JPY.\n",
    })
    expect(await storedLink(sandbox, link._id)).toMatchObject({ currency: 'EUR', amount: 10.5 })
    const both = await pay(
      'links',
      'update',
      link._id,
      '--currency',
      'jpy',
      '--amount',
      '1500',
      '--jq',
      '.currency',
    )
    expect(both).toMatchObject({ code: 0, stdout: 'JPY\n' })
    expect(await storedLink(sandbox, link._id)).toMatchObject({ currency: 'JPY', amount: 1500 })
  })
})

describe('subs update --status', () => {
  const subscription = async () => {
    const answer = await sandbox.request('POST', '/subscriptions', {
      package_id: sandbox.packageIds[0],
      email: 'status@example.com',
    })
    return answer.body.data._id as string
  }

  test.each([['cancelled'], ['Canceled'], ['CANCEL']])(
    '%s, a word pay prints or the service’s own in any case: sent as "cancel"',
    async (word) => {
      const id = await subscription()
      const result = await pay('subs', 'update', id, '--status', word, '--jq', '.status')
      expect(result).toMatchObject({ code: 0, stdout: 'cancel\n', stderr: '' })
      expect((await serverStatuses(sandbox)).get(id)).toBe('cancel')
    },
  )

  test('a status an update cannot set: exit 3, the allowed value named, nothing sent', async () => {
    const id = await subscription()
    const result = await pay('subs', 'update', id, '--status', 'paused')
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n' +
        '  --status  The status an update can set is cancel (pay shows it as cancelled; cancelled and canceled are taken too).\n',
    })
    expect((await serverStatuses(sandbox)).get(id)).toBe('created')
  })
})
