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
    sandbox = await startTestSandbox()
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
