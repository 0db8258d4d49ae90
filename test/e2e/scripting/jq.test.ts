import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BIN, cleanEnv, runCli } from '../../helpers/cli.js'
import {
  HOSTILE_TITLE,
  HOSTILE_TITLE_SHOWN,
  type Json,
  linkCreateArgs,
  seedLink,
} from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * --jq end to end against a sandbox: over exactly what --json prints (one record, a list, the
 * merged pages of --all, bulk results), strings raw and sanitised, a bad expression refused
 * before anything is sent, a failing one exit 2, and pipes that close early or cannot be written.
 */

let sandbox: TestSandbox
/** Newest first, as the service lists them: 60 links, two pages of 50. */
let links: Json[]

beforeAll(async () => {
  sandbox = await startTestSandbox()
  const created: Json[] = []
  for (let i = 0; i < 59; i += 1) {
    created.push(
      await seedLink(sandbox, { title: `Link ${i}`, amount: String(i + 1), currency: i % 2 ? 'EUR' : 'USD' }),
    )
  }
  created.push(await seedLink(sandbox, { title: HOSTILE_TITLE }))
  links = created.reverse()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })

describe('--jq', () => {
  test('runs over the merged pages of --all, and over the first page without it', async () => {
    const all = await pay('links', 'list', '--all', '--jq', 'length')
    expect(all).toMatchObject({ code: 0, stdout: '60\n', stderr: '' })
    const first = await pay('links', 'list', '--jq', 'length')
    expect(first).toMatchObject({
      code: 0,
      stdout: '50\n',
      stderr: 'More payment links exist than this first page: add --all to fetch them all.\n',
    })
    const sums = await pay(
      'links',
      'list',
      '--all',
      '--jq',
      'group_by(.currency)[] | "\\(.[0].currency) \\(map(.amount) | add)"',
    )
    expect(sums.stdout).toBe('EUR 880\nUSD 900\n')
  })

  test('strings print raw with control characters in caret notation; JSON keeps them exact', async () => {
    const hostile = links[0]
    const raw = await pay('links', 'get', hostile._id, '--jq', '.title')
    expect(raw).toMatchObject({ code: 0, stdout: `${HOSTILE_TITLE_SHOWN}\n`, stderr: '' })
    const json = await pay('links', 'get', hostile._id, '--jq', '{title}')
    expect(JSON.parse(json.stdout)).toEqual({ title: HOSTILE_TITLE })
    expect(json.stdout).toContain('\\u001b[31m')
    expect(json.stdout).toContain('\\u009b')
  })

  test('a bad expression is a usage error before anything is sent', async () => {
    const before = (await sandbox.request('GET', '/payment-links?per_page=500')).body.data.total
    const result = await pay(...linkCreateArgs(), '--jq', '.data | ._id,')
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      // --jq implies --json: the error is JSON on stderr too.
      stderr: `${JSON.stringify({
        error: {
          status: null,
          kind: 'usage',
          exit_code: 2,
          message: "--jq '.data | ._id,': syntax error, unexpected end of file (Unix shell quoting issues?)",
          hint: 'pay runs jq 1.7.1: see https://jqlang.org/manual/v1.7/',
        },
      })}\n`,
    })
    expect((await sandbox.request('GET', '/payment-links?per_page=500')).body.data.total).toBe(before)
  })

  test('an error while running is exit 2, after what jq printed before it', async () => {
    const result = await pay(
      'links',
      'list',
      '--all',
      '--jq',
      '.[] | if .amount == 58 then error("stop at \\(.title)") else .amount end',
    )
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('10\n59\n')
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        status: null,
        kind: 'usage',
        exit_code: 2,
        message: `--jq '.[] | if .amount == 58 then error("stop at \\(.title)") else .amount end': stop at Link 57`,
        hint: 'pay runs jq 1.7.1: see https://jqlang.org/manual/v1.7/',
      },
    })
  })

  test('over bulk results and a create; written before the command like --json', async () => {
    const [one, two] = await Promise.all(
      [0, 1].map(async () => {
        const answer = await sandbox.request('POST', '/subscriptions', {
          package_id: sandbox.packageIds[0],
          email: 'bulk@example.com',
        })
        return answer.body.data._id as string
      }),
    )
    const cancel = await pay('subs', 'cancel', one, two, '--yes', '--jq', '.[] | "\\(.id) \\(.status)"')
    expect(cancel.code).toBe(0)
    expect(cancel.stdout).toBe(`${one} cancelled\n${two} cancelled\n`)
    const created = await pay(...linkCreateArgs('7.25'), '--jq', '.amount')
    expect(created).toMatchObject({ code: 0, stdout: '7.25\n', stderr: '' })
    const before = await pay('--jq', '.[0].title', 'links', 'list')
    expect(before).toMatchObject({ code: 0, stdout: 'T\n' })
  })

  test('--jq and --jsonl cannot be combined with --columns or --quiet', async () => {
    const result = await pay('links', 'list', '--jq', '.', '--columns', '_id')
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({
        error: {
          status: null,
          kind: 'usage',
          exit_code: 2,
          message: '--columns cannot be combined with --jq, which prints JSON.',
        },
      })}\n`,
    })
    const quiet = await pay('subs', 'list', '--jsonl', '-q')
    expect(quiet.stderr).toBe('Error: --quiet cannot be combined with --jsonl, which prints JSON.\n')
  })

  test('--jq on an unknown id: exit 5, the error as JSON on stderr, nothing on stdout', async () => {
    const result = await pay('links', 'get', '0123456789abcdef01234567', '--jq', '._id')
    expect(result).toMatchObject({ code: 5, stdout: '' })
    expect(JSON.parse(result.stderr)).toEqual({
      error: { status: 404, kind: 'not_found', exit_code: 5, message: expect.any(String) },
    })
  })

  test('-q and --columns with --json are usage errors, as with --jq (nothing sent)', async () => {
    const quiet = await pay('links', 'list', '--json', '-q')
    expect(quiet).toMatchObject({ code: 2, stdout: '' })
    expect(JSON.parse(quiet.stderr).error).toMatchObject({
      kind: 'usage',
      message: '--quiet cannot be combined with --json, which prints JSON.',
    })
    const columns = await pay('subs', 'list', '--columns', '_id', '--json')
    expect(JSON.parse(columns.stderr).error.message).toBe(
      '--columns cannot be combined with --json, which prints JSON.',
    )
  })
})

describe('output that cannot be written', () => {
  const spawnPay = (args: string[], stdout: number) =>
    spawn(process.execPath, [BIN, ...args], { env: cleanEnv(sandbox.env), stdio: ['ignore', stdout, 'pipe'] })
  // `| head -1` for the same commands: test/e2e/dist/pipe.test.ts.
  const CASES = [
    ['links', 'list', '--all', '--jq', '.[]._id'],
    ['links', 'list', '--all', '--jsonl'],
    ['api', '/payment-links', '--paginate'],
  ]

  test.each(CASES.map((args) => [args.join(' '), args]))(
    'pay %s > /dev/full: one clean line, JSON under --jq, exit 1',
    async (_, args) => {
      const full = fs.openSync('/dev/full', 'w')
      const child = spawnPay(args, full)
      let stderr = ''
      child.stderr?.setEncoding('utf8').on('data', (chunk) => {
        stderr += chunk
      })
      const code = await new Promise((resolve) => child.on('close', resolve))
      fs.closeSync(full)
      const message = 'could not write the output: no space left on device (ENOSPC).'
      // --jq implies --json, whose errors are JSON; --jsonl and pay api's are said in words.
      const said = args.includes('--jq')
        ? `${JSON.stringify({ error: { status: null, kind: 'general', exit_code: 1, message } })}\n`
        : `Error: ${message}\n`
      expect({ code, stderr }).toEqual({ code: 1, stderr: said })
    },
  )
})
