import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { fakeService, ID } from '../../helpers/link-service.js'
import { fakeEnv, type Json, seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { LONG_TITLE, seedThreeLinks } from '../../helpers/three-links.js'

describe('against a sandbox', () => {
  /** `pay links get` and `pay links list` end to end against a real sandbox, stdout piped. */

  let sandbox: TestSandbox
  /** Oldest first: a (unpaid), b (paid with `pay sandbox pay`), c (unpaid, 300-char title). */
  let a: Json
  let b: Json
  let c: Json

  beforeAll(async () => {
    // The directory's own key, as a user's fresh directory has it: `pay sandbox pay` (the built-in
    // profile) finds its key there and says nothing of records kept before.
    sandbox = await startTestSandbox({ ownKey: true })
    ;({ a, b, c } = await seedThreeLinks(sandbox))
  })

  afterAll(async () => {
    await sandbox.close()
  })

  const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

  /** A TSV row: the amount a plain number, its currency in the next cell. */
  const row = (link: Json, amount: string) =>
    [
      link._id,
      'Active',
      String(link.paid),
      amount,
      link.currency,
      link.email,
      link.title,
      link.reference ?? '',
      link.created_at,
    ]
      .join('\t')
      .concat('\n')

  const rowA = () => row(a, '10')
  const rowB = () => row(b, '20')
  const rowC = () => row(c, '300')

  describe.concurrent('links list', () => {
    test('piped: one TSV row per link, newest first, no header, a 300-character title whole', async () => {
      const result = await pay('links', 'list')
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toBe(rowC() + rowB() + rowA())
      expect(LONG_TITLE).toHaveLength(300)
      expect(result.stdout.split('\t')).toContain(LONG_TITLE)
    })

    test('--json: one array of the records', async () => {
      const result = await pay('links', 'list', '--json')
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual([c, b, a])
    })

    test('--columns _id,amount', async () => {
      const result = await pay('links', 'list', '--columns', '_id,amount')
      expect(result).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `${c._id}\t300\n${b._id}\t20\n${a._id}\t10\n`,
      })
    })

    test('--columns with an unknown column: exit 2', async () => {
      const result = await pay('links', 'list', '--columns', 'amount,nope,zilch')
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^Error: Unknown column "nope", "zilch" for --columns\.\n/)
      expect(result.code).toBe(2)
    })

    test('-q: ids only', async () => {
      const result = await pay('links', 'list', '-q')
      expect(result).toMatchObject({ code: 0, stderr: '', stdout: `${c._id}\n${b._id}\n${a._id}\n` })
    })

    test('--paid: only the paid link', async () => {
      expect(await pay('links', 'list', '--paid')).toMatchObject({ code: 0, stderr: '', stdout: rowB() })
    })

    test('--no-paid: only the unpaid links', async () => {
      expect(await pay('links', 'list', '--no-paid', '-q')).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `${c._id}\n${a._id}\n`,
      })
    })

    test('--email matches case-insensitively', async () => {
      expect(await pay('links', 'list', '--email', 'Ann@EXAMPLE.com')).toMatchObject({
        code: 0,
        stderr: '',
        stdout: rowC() + rowA(),
      })
    })

    test('--reference matches in any case, like --email and --status', async () => {
      expect(await pay('links', 'list', '--reference', 'REF-A')).toMatchObject({
        code: 0,
        stderr: '',
        stdout: rowA(),
      })
      const json = await pay('links', 'list', '--reference', 'ref-a', '--json')
      expect(json.code).toBe(0)
      expect(JSON.parse(json.stdout)).toEqual([a])
    })

    test('--status, combined with the other filters', async () => {
      expect(
        await pay('links', 'list', '--status', 'active', '--no-paid', '--email', 'ann@example.com', '-q'),
      ).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `${c._id}\n${a._id}\n`,
      })
    })

    test('nothing matches: empty TSV, or [] with --json, exit 0', async () => {
      const [tsv, json] = await Promise.all([
        pay('links', 'list', '--email', 'nobody@example.com'),
        pay('links', 'list', '--email', 'nobody@example.com', '--json'),
      ])
      expect(tsv).toMatchObject({ code: 0, stdout: '', stderr: '' })
      expect(json).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' })
    })

    test('--search: the text in the title, description, e-mail or either reference, in any case', async () => {
      const ids = async (...args: string[]) => {
        const result = await pay('links', 'list', '--search', ...args, '-q')
        expect([result.code, result.stderr]).toEqual([0, ''])
        return result.stdout
      }
      expect(await ids('ALPHA')).toBe(`${a._id}\n`)
      expect(await ids('first')).toBe(`${a._id}\n`)
      expect(await ids('ref-b')).toBe(`${b._id}\n`)
      expect(await ids('r2-a')).toBe(`${a._id}\n`)
      expect(await ids('ann@')).toBe(`${c._id}\n${a._id}\n`)
      expect(await ids('example.com')).toBe(`${c._id}\n${b._id}\n${a._id}\n`)
      // Combined with the other filters, every one must hold.
      expect(await ids('example.com', '--paid')).toBe(`${b._id}\n`)
      expect(await ids('nowhere')).toBe('')
      expect(await pay('links', 'list', '--search', ' ')).toMatchObject({
        code: 2,
        stdout: '',
        stderr: 'Error: --search needs some text to look for.\n',
      })
    })

    test('--format csv: a header row, then each link, amounts as numbers, long text whole', async () => {
      const result = await pay('links', 'list', '--format', 'csv')
      expect([result.code, result.stderr]).toEqual([0, ''])
      const line = (link: Json, amount: string) =>
        [
          link._id,
          'Active',
          link.paid,
          amount,
          link.currency,
          link.email,
          link.title,
          link.reference ?? '',
          // As every CSV pay writes a time (the bulk reports too): UTC, YYYY-MM-DD HH:MM:SS.
          String(link.created_at).slice(0, 19).replace('T', ' '),
        ].join(',')
      expect(result.stdout).toBe(
        [
          '_id,status,paid,amount,currency,email,title,reference,created_at',
          line(c, '300'),
          line(b, '20'),
          line(a, '10'),
          '',
        ].join('\n'),
      )
      const picked = await pay('links', 'list', '--format', 'csv', '--columns', 'id,TITLE', '--limit', '1')
      expect(picked).toMatchObject({ code: 0, stdout: `_id,title\n${c._id},${LONG_TITLE}\n` })
      for (const [other, named] of [
        ['--jsonl', '--jsonl'],
        ['-q', '--quiet'],
      ]) {
        expect(await pay('links', 'list', '--format', 'csv', other)).toMatchObject({
          code: 2,
          stdout: '',
          stderr: `Error: --format csv cannot be combined with ${named}: choose one output.\n`,
        })
      }
      const json = await pay('links', 'list', '--format', 'csv', '--json')
      expect([json.code, json.stdout, JSON.parse(json.stderr).error.message]).toEqual([
        2,
        '',
        '--format csv cannot be combined with --json: choose one output.',
      ])
      expect(await pay('links', 'list', '--format', 'xlsx')).toMatchObject({ code: 2, stdout: '' })
    })

    test('a status the service does not have is a usage error naming those it has', async () => {
      expect(await pay('links', 'list', '--status', 'Expired')).toMatchObject({
        code: 2,
        stdout: '',
        stderr: 'Error: Unknown status "Expired" for --status.\nKnown: Active.\n',
      })
    })
  })

  describe('links list across pages (the sandbox serves 50 per page)', () => {
    let paged: TestSandbox
    /** Newest first, as the service lists them. */
    let ids: string[]

    beforeAll(async () => {
      paged = await startTestSandbox()
      const created: string[] = []
      for (let i = 1; i <= 55; i += 1) {
        const link = await seedLink(paged, {
          email: i % 2 === 0 ? 'even@example.com' : 'odd@example.com',
          amount: `${i}.00`,
          title: `Link ${i}`,
          reference: i === 1 ? 'OLDEST' : `P-${i}`,
        })
        created.push(link._id)
      }
      ids = created.reverse()
    })

    afterAll(async () => {
      await paged.close()
    })

    const run = (...args: string[]) => runInProcess(args, { env: paged.env })

    test.concurrent('without --all: the first page, and a note on stderr that more exist', async () => {
      const result = await run('links', 'list', '-q')
      expect(result.stdout).toBe(
        ids
          .slice(0, 50)
          .map((id) => `${id}\n`)
          .join(''),
      )
      expect(result.stderr).toBe(
        'More payment links exist than this first page: add --all to fetch them all.\n',
      )
      expect(result.code).toBe(0)
    })

    test.concurrent('--all: every link, in order, each once', async () => {
      const result = await run('links', 'list', '--all', '-q')
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toBe(ids.map((id) => `${id}\n`).join(''))
    })

    test.concurrent('--all --json: one array of 55 records', async () => {
      const result = await run('links', 'list', '--all', '--json')
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const links = JSON.parse(result.stdout)
      expect(links.map((link: Json) => link._id)).toEqual(ids)
      expect(links[54]).toMatchObject({ title: 'Link 1', amount: 1, reference: 'OLDEST' })
    })

    test.concurrent('filters search every page, --all or not, and say how far they searched', async () => {
      const [all, withoutAll, odd] = await Promise.all([
        run('links', 'list', '--all', '--reference', 'OLDEST', '--columns', '_id,title,amount'),
        run('links', 'list', '--reference', 'oldest', '--json'),
        run('links', 'list', '--email', 'odd@example.com', '-q'),
      ])
      const searched = 'Searched 55 payment links on 2 pages.\n'
      expect(all).toMatchObject({ code: 0, stderr: searched, stdout: `${ids[54]}\tLink 1\t1\n` })
      expect(withoutAll.code).toBe(0)
      expect(JSON.parse(withoutAll.stdout).map((link: Json) => link._id)).toEqual([ids[54]])
      expect(withoutAll.stderr).toBe(searched)
      expect(odd.stdout.trim().split('\n')).toHaveLength(28)
    })

    test.concurrent('--search and --sort read every page; amounts sort as numbers, ties keep the service order', async () => {
      const [oldest, byAmount, downward, byEmail] = await Promise.all([
        run('links', 'list', '--search', 'oldest', '-q'),
        run('links', 'list', '--sort', 'amount', '-q'),
        run('links', 'list', '--sort', '-AMOUNT', '--limit', '2', '--columns', 'title,amount'),
        run('links', 'list', '--sort', 'email', '-q'),
      ])
      expect(oldest).toMatchObject({
        code: 0,
        stdout: `${ids[54]}\n`,
        stderr: 'Searched 55 payment links on 2 pages.\n',
      })
      // 1, 2, 3 … 55, not 1, 10, 11 …: every page read, no note that more exist.
      expect(byAmount).toMatchObject({ code: 0, stderr: '', stdout: `${[...ids].reverse().join('\n')}\n` })
      expect(downward).toMatchObject({
        code: 0,
        stdout: 'Link 55\t55\nLink 54\t54\n',
        stderr: 'Showing the first 2 payment links: a higher --limit shows more.\n',
      })
      // even@ before odd@, each in the order the service listed them (newest first).
      const even = ids.filter((_, i) => i % 2 === 1)
      const odd = ids.filter((_, i) => i % 2 === 0)
      expect(byEmail.stdout).toBe(`${[...even, ...odd].join('\n')}\n`)
      expect(await run('links', 'list', '--sort', 'titel')).toMatchObject({
        code: 2,
        stdout: '',
        stderr: expect.stringMatching(
          /^Error: Unknown field "titel" for --sort\.\nSort by one of _id, status, paid, amount, email, title, /,
        ),
      })
    })

    test.concurrent('--limit N stops after N matches, across pages, and says more may exist', async () => {
      const [five, unfiltered] = await Promise.all([
        run('links', 'list', '--email', 'odd@example.com', '--limit', '5', '-q'),
        run('links', 'list', '--limit', '52', '-q'),
      ])
      expect(five).toMatchObject({
        code: 0,
        stdout: `${ids
          .filter((_, i) => i % 2 === 0)
          .slice(0, 5)
          .join('\n')}\n`,
        stderr: 'Showing the first 5 matching payment links: a higher --limit shows more.\n',
      })
      expect(unfiltered.stdout.trim().split('\n')).toEqual(ids.slice(0, 52))
      expect(unfiltered.stderr).toBe('Showing the first 52 payment links: a higher --limit shows more.\n')
    })

    test.concurrent('the note names only flags not given: --all given, or the default limit of a terminal', async () => {
      const [jsonl, screen, screenAll] = await Promise.all([
        run('links', 'list', '--all', '--jsonl', '--limit', '3'),
        runInProcess(['links', 'list', '-q'], { env: paged.env, terminal: true }),
        runInProcess(['links', 'list', '--all', '-q'], { env: paged.env, terminal: true }),
      ])
      expect(jsonl.stdout.trimEnd().split('\n')).toHaveLength(3)
      expect(jsonl.stderr).toBe('Showing the first 3 payment links: a higher --limit shows more.\n')
      expect(screen.stdout.trimEnd().split('\n')).toEqual(ids.slice(0, 30))
      expect(screen.stderr).toBe('Showing the first 30 payment links: add --limit N or --all for more.\n')
      expect(screenAll.stdout.trimEnd().split('\n')).toEqual(ids.slice(0, 30))
      expect(screenAll.stderr).toBe('Showing the first 30 payment links: add --limit N for more.\n')
    })
  })

  describe('links list --created-after/--created-before, and CSV a spreadsheet reads safely', () => {
    let dated: TestSandbox
    /** Created 10 days apart by the sandbox's clock, oldest first. */
    let early: Json
    let middle: Json
    let late: Json

    beforeAll(async () => {
      dated = await startTestSandbox()
      const advance = async () =>
        expect((await dated.request('POST', '/_sandbox/clock', { advance: '10d' })).status).toBe(200)
      early = await seedLink(dated, {
        title: '=HYPERLINK("https://evil.example","Click")',
        description: 'one, two',
      })
      await advance()
      middle = await seedLink(dated, { title: 'Two\nlines "quoted"', description: '+1 then -1' })
      await advance()
      late = await seedLink(dated, { title: '漢字のタイトル 😀', description: '@mention\u001b[2J' })
    })
    afterAll(() => dated.close())

    const run = (...args: string[]) => runInProcess(args, { env: dated.env })
    const shifted = (link: Json, days: number) =>
      new Date(Date.parse(link.created_at) + days * 86_400_000).toISOString()

    test('at or after, and before: a date, a date and time, or a span back', async () => {
      const ids = async (...args: string[]) => {
        const result = await run('links', 'list', ...args, '-q')
        expect([result.code, result.stderr]).toEqual([0, ''])
        return result.stdout
      }
      expect(await ids('--created-after', middle.created_at)).toBe(`${late._id}\n${middle._id}\n`)
      expect(await ids('--created-before', middle.created_at)).toBe(`${early._id}\n`)
      expect(await ids('--created-after', shifted(early, 1), '--created-before', shifted(late, -1))).toBe(
        `${middle._id}\n`,
      )
      expect(await ids('--created-after', shifted(late, 0).slice(0, 10))).toBe(`${late._id}\n`)
      // A span is back from now, by this machine's clock: the first link was made within the last day.
      expect(await ids('--created-after', '1d')).toBe(`${late._id}\n${middle._id}\n${early._id}\n`)
      expect(await ids('--created-before', '1d')).toBe('')
      expect(await run('links', 'list', '--created-after', 'last week')).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          'Error: --created-after: "last week" is neither a date nor a span back from now.\n' +
          'Give a date (2026-11-01), a date and time (2026-11-01T09:00:00Z), or a span such as 7d, 12h or 1mo.\n',
      })
      expect(await run('links', 'list', '--created-before', '2026-02-30')).toMatchObject({
        code: 2,
        stdout: '',
      })
    })

    test("--format csv: a formula's start prefixed with ', quotes doubled, commas and line breaks quoted, wide text whole, controls as on a terminal", async () => {
      const result = await run(
        'links',
        'list',
        '--format',
        'csv',
        '--columns',
        'title,description',
        '--sort',
        'created_at',
      )
      expect([result.code, result.stderr]).toEqual([0, ''])
      expect(result.stdout).toBe(
        'title,description\n' +
          `"'=HYPERLINK(""https://evil.example"",""Click"")","one, two"\n` +
          `"Two\nlines ""quoted""",'+1 then -1\n` +
          `漢字のタイトル 😀,'@mention^[[2J\n`,
      )
    })
  })

  describe('links list with no links at all', () => {
    test('TSV prints nothing, --json prints [], both exit 0', async () => {
      const empty = await startTestSandbox()
      try {
        const [tsv, json] = await Promise.all([
          runInProcess(['links', 'list'], { env: empty.env }),
          runInProcess(['links', 'list', '--json'], { env: empty.env }),
        ])
        expect(tsv).toMatchObject({ code: 0, stdout: '', stderr: '' })
        expect(json).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' })
      } finally {
        await empty.close()
      }
    })
  })
})

describe('the request', () => {
  /**
   * What exactly goes over the wire: the command, run in this process, against a loopback
   * server that records each request (method, path, headers, raw body) and answers like the
   * service.
   */

  describe.concurrent('links get, list, delete: the requests', () => {
    test('list: GET /payment-links (a bare data array is accepted)', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'list', '-q'], { env: fakeEnv(fake) })
      expect(result).toMatchObject({ code: 0, stdout: `${ID}\n`, stderr: '' })
      expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /payment-links'])
    })
  })
})

describe('links list at 80 columns with a wide amount', () => {
  let wide: TestSandbox
  beforeAll(async () => {
    wide = await startTestSandbox()
  })
  afterAll(() => wide.close())

  test('ID STATUS AMOUNT EMAIL TITLE all shown: e-mail and title cut, the amount whole', async () => {
    const link = (
      await wide.request('POST', '/payment-links', {
        email: 'jane@example.com',
        currency: 'EUR',
        amount: '9999999999999.99',
        title: 'Invoice 1042 for the big one',
      })
    ).body.data as Json
    const shown = await runInProcess(['links', 'list'], {
      env: wide.env,
      terminal: true,
      width: 80,
      colour: false,
    })
    expect(shown).toMatchObject({ code: 0, stderr: '' })
    expect(shown.stdout).toBe(
      [
        'ID                        STATUS          AMOUNT                EMAIL    TITLE',
        `${link._id}  Active, unpaid  9999999999999.99 EUR  jane@e…  Invoic…`,
        '',
      ].join('\n'),
    )
  })
})
