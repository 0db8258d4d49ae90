import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import { readSandboxKey, SANDBOX_KEY_FILE } from '../../../src/shared/sandbox-key.js'
import { tempDir } from '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import type { TestIO } from '../../helpers/io.js'
import { createLocal } from '../../helpers/local-store.js'

/** A port some other program listens on. */
async function takenPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

describe('pay sandbox start', () => {
  it('on a port another program holds: says which, and how to pick another; exit 2, nothing raw', async () => {
    const other = await takenPort()
    try {
      const taken = await runInProcess(['sandbox', 'start', '--port', String(other.port)])
      expect(taken).toMatchObject({ code: 2, stdout: '' })
      expect(taken.stderr).toBe(
        `Error: Port ${other.port} on 127.0.0.1 is taken by another program.\n` +
          'Pick another port with --port PORT, or --port 0 for any free one.\n',
      )
      // The port came from PAY_SANDBOX_PORT (the sandbox profile's): how to move both.
      const profilePort = await runInProcess(['sandbox', 'start'], {
        env: { PAY_SANDBOX_PORT: String(other.port) },
      })
      expect(profilePort.code).toBe(2)
      expect(profilePort.stderr).toBe(
        `Error: Port ${other.port} on 127.0.0.1 is taken by another program.\n` +
          'Pick another port with --port PORT, or --port 0 for any free one.\n' +
          'For `pay -p sandbox` to find it there, set PAY_SANDBOX_PORT to that port instead.\n',
      )
      const json = await runInProcess(['sandbox', 'start', '--port', String(other.port), '--json'])
      expect(json).toMatchObject({ code: 2, stdout: '' })
      expect(JSON.parse(json.stderr)).toEqual({
        error: {
          status: null,
          kind: 'usage',
          exit_code: 2,
          message: `Port ${other.port} on 127.0.0.1 is taken by another program.`,
          hint: 'Pick another port with --port PORT, or --port 0 for any free one.',
        },
      })
      // -p sandbox and --timeout are taken: the run goes on to the port.
      const flagged = await runInProcess([
        '-p',
        'sandbox',
        'sandbox',
        'start',
        '--port',
        String(other.port),
        '--timeout',
        '2',
      ])
      expect(flagged).toEqual(taken)
      for (const run of [taken, profilePort, json]) expect(run.stderr).not.toMatch(/EADDRINUSE|\n\s+at /)
    } finally {
      await other.close()
    }
  })

  it('exits 2 on a bad --port, an unknown or client flag, or a --host that is not this machine', async () => {
    const badPort = await runInProcess(['sandbox', 'start', '--port', 'http'])
    expect(badPort.code).toBe(2)
    expect(badPort.stderr).toBe(
      'Error: --port: Expected an integer but received: http\nSee `pay sandbox start --help`.\n',
    )
    const unknown = await runInProcess(['sandbox', 'start', '--bogus'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Nonexistent flag: --bogus')
    // The global flags are taken, as on every command; a profile must be the user's own sandbox.
    const help = await runInProcess(['sandbox', 'start', '--help'])
    expect(help.stdout).toMatch(
      /-p, --profile=<value>\s+Only `sandbox` \(the built-in profile\) or a profile of/,
    )
    const live = await runInProcess(['-p', 'live', 'sandbox', 'start', '--port', '0', '--timeout', '2'], {
      env: { PAY_API_KEY: undefined },
    })
    expect(live).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: There is no profile named "live" (given with --profile).\n' +
        'See `pay profiles list`; the built-in `sandbox` profile needs no set-up.\n',
    })
    // 192.0.2.1 is TEST-NET-1: documentation only, no machine's address.
    const elsewhere = await runInProcess(['sandbox', 'start', '--port', '0', '--host', '192.0.2.1'])
    expect(elsewhere).toMatchObject({ code: 2, stdout: '' })
    expect(elsewhere.stderr).toBe(
      'Error: Cannot listen on 192.0.2.1: it is not an address of this machine.\n' +
        'Give --host an address of this machine (127.0.0.1 unless others must reach it).\n',
    )
  })
})

describe('--webhook', () => {
  it('a URL with a user name or password: exit 3 under the flag, as the sandbox refuses it; nothing started', async () => {
    const dir = tempDir('pay-start-webhook-')
    const refused = await runInProcess(
      ['sandbox', 'start', '--port', '0', '--webhook', 'http://shop:s3cret@127.0.0.1:3000/hook'],
      { env: { PAY_SANDBOX_DIR: dir } },
    )
    expect(refused).toEqual({
      code: 3,
      signal: null,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n' +
        '  --webhook  The URL may not hold a user name or password: a notification carries no Authorization.\n',
    })
    expect(fs.readdirSync(dir)).toEqual([])
  })
})

describe('where the keys come from', () => {
  /**
   * Runs `pay sandbox start --port 0 --json ...args` until it listens, stops it as Ctrl-C does,
   * and gives its run with the keys its JSON line named.
   */
  async function started(args: string[], env: Record<string, string> = {}, json = true) {
    let io: TestIO | undefined
    const mode = json ? ['--json'] : []
    const running = runInProcess(['sandbox', 'start', '--port', '0', ...mode, '--quiet', ...args], {
      env: { PAY_SANDBOX_DIR: tempDir('pay-start-keys-'), ...env },
      started: (given) => {
        io = given
      },
    })
    const stop = setInterval(() => {
      if (io?.stdout.text.includes(json ? '\n' : 'Ctrl-C')) io.interrupt()
    }, 20)
    const run = await running.finally(() => clearInterval(stop))
    const keys = run.code === 0 && json ? (JSON.parse(run.stdout.split('\n')[0]).keys as string[]) : undefined
    return { ...run, keys }
  }

  const NOTE =
    'Warning: --key puts the key on the command line, where other users of this machine can read it (ps, /proc): ' +
    'give keys in a file only you can read (--key-file FILE, chmod 600) or in PAY_SANDBOX_KEYS instead.\n'

  it('none given: the directory’s own key, made the first time (0600, said), the same after; the well-known key only when given', async () => {
    const dir = tempDir('pay-start-own-key-')
    const file = path.join(dir, SANDBOX_KEY_FILE)
    const first = await started([], { PAY_SANDBOX_DIR: dir })
    const key = fs.readFileSync(file, 'utf8').trim()
    expect(key).toMatch(/^sk_sandbox_[0-9a-f]{32}$/)
    expect(first).toMatchObject({ code: 0, keys: [key] })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(first.stderr).toContain(
      `Made an API key for this sandbox directory, kept in ${file} (readable by you alone): ` +
        '`pay -p sandbox` sends it. The well-known sandbox key is served only when given by name.\n',
    )
    const again = await started([], { PAY_SANDBOX_DIR: dir })
    expect(again).toMatchObject({ code: 0, keys: [key] })
    expect(again.stderr).not.toContain('Made an API key')
    // Another directory, another key; the well-known key by name only.
    expect((await started([])).keys?.[0]).not.toBe(key)
    const WELL_KNOWN =
      'Warning: The well-known sandbox key is among the keys served: every user of this machine knows it, ' +
      'and can use this sandbox with it (its records, its signature key, its endpoints). Without any key ' +
      "given, the sandbox serves its directory's own.\n"
    for (const [args, env] of [
      [['--key', SANDBOX_KEY], {}],
      [[], { PAY_SANDBOX_KEYS: `sk_test_other,${SANDBOX_KEY}` }],
    ] as const) {
      const named = await started([...args], { PAY_SANDBOX_DIR: dir, ...env })
      expect(named.keys).toContain(SANDBOX_KEY)
      expect(named.stderr).toContain(WELL_KNOWN)
    }
    expect(first.stderr).not.toContain('well-known sandbox key is among')
    // On a terminal, the key line says whose it is.
    const shown = await started([], { PAY_SANDBOX_DIR: dir }, false)
    expect(shown.stdout.split('\n')).toContain(`Key: ${key} (this directory's own)`)
  })

  it('over a store an earlier pay kept (its records under the well-known key): the key made says where those records are, once; they are still there by name; a store of other keys says nothing of them', async () => {
    const dir = tempDir('pay-start-upgrade-')
    const wellKnown = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1', PAY_API_KEY: SANDBOX_KEY }
    const made = await createLocal(dir, runInProcess, { PAY_API_KEY: SANDBOX_KEY })
    // The directory as the earlier pay left it: a store, no key of its own.
    fs.rmSync(path.join(dir, SANDBOX_KEY_FILE))
    const file = path.join(dir, SANDBOX_KEY_FILE)
    const notice =
      `Made an API key for this sandbox directory, kept in ${file} (readable by you alone): ` +
      '`pay -p sandbox` sends it. The well-known sandbox key is served only when given by name. ' +
      'The records kept in this directory before are under the well-known sandbox key, as earlier versions ' +
      `served it: reach them with PAY_API_KEY=${SANDBOX_KEY}, or serve that key by name ` +
      `(PAY_SANDBOX_KEYS=${SANDBOX_KEY} pay sandbox start).\n`
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
    const first = await runInProcess(['-p', 'sandbox', 'links', 'list', '-q'], { env })
    expect(first).toMatchObject({ code: 0, stdout: '' })
    expect(first.stderr.startsWith(notice)).toBe(true)
    const again = await runInProcess(['-p', 'sandbox', 'links', 'list', '-q'], { env })
    expect(again.stderr).not.toContain('Made an API key')
    const old = await runInProcess(['-p', 'sandbox', 'links', 'list', '-q'], { env: wellKnown })
    expect(old).toMatchObject({ code: 0, stdout: `${made._id}\n` })
    // sandbox start says the same when it makes the key over such a store.
    fs.rmSync(file)
    const served = await started([], { PAY_SANDBOX_DIR: dir }, false)
    expect(served.code).toBe(0)
    expect(served.stderr.startsWith(notice)).toBe(true)
    // A store whose records are other keys' (a sandbox started with its own): only the key made is said.
    const others = tempDir('pay-start-others-')
    const shop = await started(['--key', 'sk_test_shop_only'], { PAY_SANDBOX_DIR: others })
    expect(shop.code).toBe(0)
    const listed = await runInProcess(['-p', 'sandbox', 'links', 'list', '-q'], {
      env: { PAY_SANDBOX_DIR: others, PAY_SANDBOX_PORT: '1' },
    })
    expect(listed).toEqual({ code: 0, signal: null, stdout: '', stderr: '' })
    fs.rmSync(path.join(others, SANDBOX_KEY_FILE))
    const restarted = await started([], { PAY_SANDBOX_DIR: others }, false)
    expect(restarted.stderr).toContain('Made an API key for this sandbox directory')
    expect(restarted.stderr).not.toContain('The records kept in this directory before')
  })

  it('a sandbox.key another user planted (a link, their file, one others may read) is refused by `sandbox start` and `-p sandbox`: exit 1, nothing read through it or changed', async () => {
    const dir = tempDir('pay-start-planted-')
    const file = path.join(dir, SANDBOX_KEY_FILE)
    const target = path.join(tempDir('pay-theirs-'), 'their.key')
    fs.writeFileSync(target, 'sk_sandbox_0123456789abcdef0123456789abcdef\n', { mode: 0o600 })
    fs.symlinkSync(target, file)
    const link = `Error: ${file} is a symbolic link: refused. Remove it; pay makes a new key for the directory.\n`
    const planted: [() => void, string][] = [[() => undefined, link]]
    planted.push([
      () => {
        fs.rmSync(file)
        fs.writeFileSync(file, 'sk_sandbox_0123456789abcdef0123456789abcdef\n', { mode: 0o644 })
        fs.chmodSync(file, 0o644)
      },
      `Error: ${file} may be read by other users. Remove it; pay makes a new key for the directory.\n`,
    ])
    if (process.getuid?.() === 0) {
      planted.push([
        () => {
          fs.chmodSync(file, 0o600)
          fs.chownSync(file, 65534, 65534)
        },
        `Error: ${file} belongs to another user.\n`,
      ])
    }
    for (const [plant, stderr] of planted) {
      plant()
      expect(await started([], { PAY_SANDBOX_DIR: dir }, false)).toMatchObject({
        code: 1,
        stdout: '',
        stderr,
      })
      const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
      expect(await runInProcess(['-p', 'sandbox', 'links', 'list'], { env })).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr,
      })
    }
    expect(fs.readFileSync(target, 'utf8')).toBe('sk_sandbox_0123456789abcdef0123456789abcdef\n')
    // Nothing was served or stored on it.
    expect(fs.readdirSync(dir).sort()).toEqual([SANDBOX_KEY_FILE])
  })

  it('PAY_SANDBOX_KEYS (comma-separated) and --key-file (one a line) keep them out of the process list', async () => {
    const dir = tempDir('pay-key-file-')
    const file = path.join(dir, 'keys')
    fs.writeFileSync(file, '# the shop\nsk_test_file_a\n\n  sk_test_file_b  \r\n', { mode: 0o600 })
    const fromEnv = await started([], { PAY_SANDBOX_KEYS: ' sk_test_env_a, sk_test_env_b,,' })
    expect(fromEnv).toMatchObject({ code: 0, keys: ['sk_test_env_a', 'sk_test_env_b'] })
    expect(fromEnv.stderr).not.toContain('Warning')
    const fromFile = await started(['--key-file', file], { PAY_SANDBOX_KEYS: 'sk_test_env_a' })
    expect(fromFile).toMatchObject({ code: 0, keys: ['sk_test_file_a', 'sk_test_file_b'] })
    expect(fromFile.stderr).not.toContain('Warning')
    // --key still works, with a warning; with --key-file the two make one list.
    const both = await started(['--key', 'sk_test_flag', '--key-file', file])
    expect(both).toMatchObject({ code: 0, keys: ['sk_test_flag', 'sk_test_file_a', 'sk_test_file_b'] })
    expect(both.stderr.startsWith(NOTE)).toBe(true)
    // sandbox packages takes its keys the same way.
    const packages = await runInProcess([
      'sandbox',
      'packages',
      '--key-file',
      file,
      '--jq',
      '.[0].business_id',
    ])
    const [first] = (await started(['--key-file', file])).stdout.split('\n')
    expect(packages.stdout.trim()).toBe(String(JSON.parse(first).packages[0].business_id))
    const flagged = await runInProcess(['sandbox', 'packages', '--key', 'sk_test_flag', '--json'])
    expect(flagged).toMatchObject({ code: 0, stderr: NOTE })
  })

  it('its account: --account (with a warning), else PAY_SANDBOX_ACCOUNT, else the --seed file’s, else the directory’s; a bad one is exit 2', async () => {
    const accountOf = (run: { stdout: string }) => JSON.parse(run.stdout.split('\n')[0]).account
    const flagged = await started(['--account', 'shop@example.com:pa:ss word'])
    expect(accountOf(flagged)).toEqual({ email: 'shop@example.com', password: 'pa:ss word' })
    expect(
      flagged.stderr.startsWith(
        'Warning: --account puts the password on the command line, where other users of this machine can read it (ps, /proc): ' +
          'give it in PAY_SANDBOX_ACCOUNT instead.\n',
      ),
    ).toBe(true)
    const fromEnv = await started([], { PAY_SANDBOX_ACCOUNT: 'env@example.com:secret' })
    expect(accountOf(fromEnv)).toEqual({ email: 'env@example.com', password: 'secret' })
    expect(fromEnv.stderr).not.toContain('Warning')
    const file = path.join(tempDir('pay-start-account-'), 'fixtures.json')
    fs.writeFileSync(file, JSON.stringify({ account: { email: 'file@example.com', password: 'from-file' } }))
    expect(accountOf(await started(['--seed', file]))).toEqual({
      email: 'file@example.com',
      password: 'from-file',
    })
    expect(accountOf(await started([]))).toEqual({
      email: expect.stringMatching(/^merchant-[0-9a-f]{8}@sandbox\.pay\.example$/),
      password: expect.stringMatching(/^[0-9a-f]{24}$/),
    })
    // On a terminal, said with the rest of what it serves, and the /api base path.
    const said = await started(['--account', 'shop@example.com:pw'], {}, false)
    expect(said.stdout).toContain(
      "Account of the keys' businesses (`pay login --email`, the plugins' sign-in):\n  shop@example.com  pw\n",
    )
    expect(said.stdout).toMatch(/The service's base path works too: http:\/\/127\.0\.0\.1:\d+\/api\n/)
    for (const [args, env, from] of [
      [['--account', 'no-colon@example.com'], {}, '--account'],
      [['--account', 'not-an-email:pw'], {}, '--account'],
      [[], { PAY_SANDBOX_ACCOUNT: 'a@b.co:' }, 'PAY_SANDBOX_ACCOUNT'],
    ] as const) {
      const refused = await started([...args], { ...env }, false)
      expect(refused).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          `Error: ${from} must be EMAIL:PASSWORD, an e-mail address and a password of at least one character.\n` +
          'For example: merchant@example.com:a-password\n',
      })
    }
  })

  it('a key file others may read, another user’s, or without a key, and a bad PAY_SANDBOX_KEYS: exit 2, no key named', async () => {
    const dir = tempDir('pay-key-file-bad-')
    const loose = path.join(dir, 'loose')
    fs.writeFileSync(loose, 'sk_test_loose_secret\n', { mode: 0o644 })
    fs.chmodSync(loose, 0o644)
    const empty = path.join(dir, 'empty')
    fs.writeFileSync(empty, '# nothing yet\n\n', { mode: 0o600 })
    const spaced = path.join(dir, 'spaced')
    fs.writeFileSync(spaced, 'sk_test_one\nsk_test two\n', { mode: 0o600 })
    const cases: [string[], Record<string, string>, string][] = [
      [
        ['--key-file', loose],
        {},
        `Error: --key-file: ${loose} may be read or changed by other users (mode 644).\nMake it yours alone: chmod 600 ${loose}\n`,
      ],
      [['--key-file', empty], {}, `Error: --key-file: ${empty} holds no key.\nWrite one key a line.\n`],
      [
        ['--key-file', spaced],
        {},
        `Error: --key-file: line 2 of ${spaced} is not one key: it has a space in it.\n`,
      ],
      [
        ['--key-file', path.join(dir, 'none')],
        {},
        `Error: --key-file: cannot read ${path.join(dir, 'none')}: no such file.\n`,
      ],
      [['--key-file', dir], {}, `Error: --key-file: ${dir} is not a regular file.\n`],
      [
        [],
        { PAY_SANDBOX_KEYS: 'sk_test_a,sk_test b' },
        'Error: PAY_SANDBOX_KEYS: key 2 has a space in it.\nSeparate keys with commas: PAY_SANDBOX_KEYS=sk_test_a,sk_test_b.\n',
      ],
    ]
    if (process.getuid?.() === 0) {
      const theirs = path.join(dir, 'theirs')
      fs.writeFileSync(theirs, 'sk_test_theirs\n', { mode: 0o600 })
      fs.chownSync(theirs, 65534, 65534)
      cases.push([
        ['--key-file', theirs],
        {},
        `Error: --key-file: ${theirs} belongs to another user.\nUse a key file of your own.\n`,
      ])
    }
    for (const [args, env, stderr] of cases) {
      expect(await started(args, env, false)).toMatchObject({ code: 2, stdout: '', stderr })
    }
  })
})

describe('the request log', () => {
  /**
   * `pay sandbox start --port 0 ...args` on a terminal of 80 columns, used by a `-p sandbox links
   * list` (which proves the sandbox is yours first) and a payment notified to a dead endpoint of a
   * long URL; stopped as Ctrl-C does once the notification's attempt is logged. Its stderr, the
   * times and milliseconds made constant.
   */
  async function logged(args: string[]): Promise<{ lines: string[]; id: string; hook: string }> {
    const dir = tempDir('pay-start-log-')
    let io: TestIO | undefined
    const running = runInProcess(['sandbox', 'start', '--port', '0', ...args], {
      env: { PAY_SANDBOX_DIR: dir },
      terminal: true,
      width: 80,
      started: (given) => {
        io = given
      },
    })
    await vi.waitFor(() => expect(io?.stdout.text).toContain('Ctrl-C'), { timeout: 10_000 })
    const baseUrl = /Sandbox listening on (\S+)/.exec(io?.stdout.text ?? '')?.[1] as string
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: new URL(baseUrl).port }
    const hook = `http://127.0.0.1:9/${'a-long-path/'.repeat(3)}of-the-app-not-running`
    const added = await runInProcess(['-p', 'sandbox', 'sandbox', 'webhooks', 'add', hook, '-q'], { env })
    expect(added).toMatchObject({ code: 0, stderr: '' })
    const id = (await runInProcess(['-p', 'sandbox', ...linkArgs], { env })).stdout.trim()
    const paid = await runInProcess(['-p', 'sandbox', 'sandbox', 'pay', id, '-q'], { env })
    expect(paid).toMatchObject({ code: 0, stderr: '' })
    await vi.waitFor(() => expect(io?.stderr.text).toContain('WEBHOOK'), { timeout: 10_000 })
    io?.interrupt()
    const run = await running
    expect(run.code).toBe(0)
    // From the first request on: before it, how to reach this sandbox (on port 0, not the profile's).
    const log = run.stderr.slice(run.stderr.search(/^\d\d:\d\d:\d\d /m))
    const lines = log
      .trimEnd()
      .split('\n')
      .map((line) => line.replace(/^\d\d:\d\d:\d\d /, 'TIME ').replace(/\d+\.\d ms/, 'N ms'))
    return { lines, id, hook }
  }

  const linkArgs = [
    'links',
    'create',
    '--email',
    'a@b.co',
    '--currency',
    'EUR',
    '--amount',
    '5',
    '--title',
    'T',
    '-q',
  ]

  it('leaves out the health requests every pay command sends first, unless --verbose; wraps a long line at spaces', async () => {
    const { lines, id, hook } = await logged([])
    expect(hook).toHaveLength(77)
    expect(lines).toEqual([
      'TIME POST /_sandbox/webhooks 200 N ms',
      'TIME POST /payment-links 200 N ms',
      `TIME GET /payment-links/${id} 200 N ms`,
      `TIME POST /_sandbox/payment-links/${id}/pay 200 N ms`,
      // Too wide beside the time and under it: whole, from the first column.
      'TIME WEBHOOK',
      hook,
      '         - N ms (connection refused (ECONNREFUSED)) pending',
      '',
      'Sandbox stopped after 10 requests.',
    ])
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80)
    const verbose = await logged(['--verbose'])
    expect(verbose.lines.filter((line) => line.includes('/_sandbox/health'))).toEqual(
      Array(6).fill('TIME GET /_sandbox/health?challenge=[REDACTED] 200 N ms'),
    )
  })

  it('the banner at 80 columns: a webhook endpoint too wide beside its id goes under it, whole', async () => {
    const hook = `http://127.0.0.1:9/${'a-long-path/'.repeat(3)}of-the-app-not-running`
    let io: TestIO | undefined
    const running = runInProcess(['sandbox', 'start', '--port', '0', '--webhook', hook], {
      env: { PAY_SANDBOX_DIR: tempDir('pay-start-banner-') },
      terminal: true,
      width: 80,
      started: (given) => {
        io = given
      },
    })
    await vi.waitFor(() => expect(io?.stdout.text).toContain('Ctrl-C'), { timeout: 10_000 })
    io?.interrupt()
    const lines = (await running).stdout.split('\n')
    const at = lines.indexOf('Webhook endpoints (payment attempts are POSTed there):')
    expect(lines.slice(at + 1, at + 3)).toEqual([expect.stringMatching(/^ {2}[0-9a-f]{24}$/), `  ${hook}`])
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80)
  })

  it('a leased endpoint added again (the renewal that keeps a links wait’s or a listen’s) is logged only with --verbose', async () => {
    for (const verbose of [false, true]) {
      let io: TestIO | undefined
      const dir = tempDir('pay-start-lease-')
      const running = runInProcess(['sandbox', 'start', '--port', '0', ...(verbose ? ['--verbose'] : [])], {
        env: { PAY_SANDBOX_DIR: dir },
        started: (given) => {
          io = given
        },
      })
      await vi.waitFor(() => expect(io?.stdout.text).toContain('Ctrl-C'), { timeout: 10_000 })
      const baseUrl = /Sandbox listening on (\S+)/.exec(io?.stdout.text ?? '')?.[1] as string
      // The key it serves: its directory's own, made as it started.
      const key = readSandboxKey(dir) as string
      const add = (body: Record<string, unknown>) =>
        fetch(`${baseUrl}/_sandbox/webhooks`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      const leased = { url: 'http://127.0.0.1:9/leased', lease_seconds: 20 }
      for (const body of [
        leased,
        leased,
        { url: 'http://127.0.0.1:9/kept' },
        { url: 'http://127.0.0.1:9/kept' },
      ]) {
        expect((await add(body)).status).toBe(200)
      }
      // A marker after them: every line before it is written by then.
      await fetch(`${baseUrl}/payment-links/marker`, { headers: { Authorization: `Bearer ${key}` } })
      await vi.waitFor(() => expect(io?.stderr.text).toContain('/payment-links/marker'), { timeout: 10_000 })
      io?.interrupt()
      const run = await running
      const posts = run.stderr.split('\n').filter((line) => line.includes('POST /_sandbox/webhooks'))
      // The first add of each, and adding a kept endpoint (no lease) again, are an app's doing: logged.
      expect(posts).toHaveLength(verbose ? 4 : 3)
    }
  })
})
