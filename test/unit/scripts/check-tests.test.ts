import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT, tempDir } from '../../helpers/cli.js'

const run = promisify(execFile)
const SCRIPT = path.join(ROOT, 'scripts/check-tests.mjs')

/** scripts/check-tests.mjs (in `npm run lint`) on a tree of these files: its offences, and its exit code. */
async function check(files: Record<string, string>): Promise<{ code: number; offences: string[] }> {
  const dir = tempDir('pay-check-tests-')
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  const result = await run(process.execPath, [SCRIPT, dir]).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => error,
  )
  return {
    code: result.code,
    offences: result.stderr.split('\n').filter((line) => /^[\w./-]+:\d+: /.test(line)),
  }
}

const lines = (...text: string[]) => `${text.join('\n')}\n`
/** The fixtures' text names the object as code would; this file itself only reads it. */
const ENV = 'process.env'

describe('the rules every test follows (npm run lint)', () => {
  it('hold in the tree as it is', async () => {
    const result = await run(process.execPath, [SCRIPT]).catch((error: { stderr: string }) => error)
    expect(result.stderr).toBe('')
  })

  it('refuses a test, a helper or a vitest config that writes process.env, naming file and line', async () => {
    const { code, offences } = await check({
      'test/unit/a.test.ts': lines(
        `${ENV}.PAY_API_KEY = 'sk_test_x'`,
        `${ENV}['PAY_TEST_EMAIL'] = 'a@b.co'`,
        `delete ${ENV}.XDG_RUNTIME_DIR`,
        `Object.assign(${ENV}, { A: "1" })`,
        "vi.stubEnv('PAY_TIMEOUT', '1')",
        `${ENV}.PATH += ":/x"`,
        `${ENV}.PAY_KEYCHAIN ??= '0'`,
      ),
      'test/helpers/setup.ts': lines(`${ENV} = { ...${ENV}, CI: "1" }`),
      'test/e2e/b.test.ts': lines(`Object.defineProperty(${ENV}, 'A', { value: '1' })`),
      'vitest.config.ts': lines(`Reflect.deleteProperty(${ENV}, 'XDG_RUNTIME_DIR')`),
    })
    expect(code).toBe(1)
    const writes = (file: string, line: number) =>
      `${file}:${line}: writes process.env (pass the environment in: a run’s env, vitest.config.ts test.env)`
    expect(offences).toEqual([
      writes('test/e2e/b.test.ts', 1),
      writes('test/helpers/setup.ts', 1),
      ...[1, 2, 3, 4, 5, 6, 7].map((line) => writes('test/unit/a.test.ts', line)),
      writes('vitest.config.ts', 1),
    ])
  })

  it('refuses an assertion of a measured time: how long something took, compared with a bound', async () => {
    const { code, offences } = await check({
      'test/unit/a.test.ts': lines(
        'expect(Date.now() - started).toBeLessThan(200)',
        'expect(elapsed).toBeLessThan(900)',
        'expect(result.ms).toBeGreaterThanOrEqual(150)',
        'expect(performance.now() - t0).not.toBeGreaterThan(5)',
        'expect(gaps(server)[0]).toBeGreaterThanOrEqual(900)',
        'expect(',
        '  result.endedAt - first,',
        ').toBeLessThan(8000)',
        'expect.soft(took, "the start").toBeLessThanOrEqual(1000)',
        'await expect(duration()).resolves.toBeLessThan(3)',
      ),
    })
    expect(code).toBe(1)
    expect(offences).toEqual(
      [
        [1, 'toBeLessThan'],
        [2, 'toBeLessThan'],
        [3, 'toBeGreaterThanOrEqual'],
        [4, 'toBeGreaterThan'],
        [5, 'toBeGreaterThanOrEqual'],
        [6, 'toBeLessThan'],
        [9, 'toBeLessThanOrEqual'],
        [10, 'toBeLessThan'],
      ].map(
        ([line, matcher]) =>
          `test/unit/a.test.ts:${line}: asserts a measured time (${matcher}): assert behaviour; a time is a figure for npm run bench`,
      ),
    )
  })

  it('refuses a sleep followed by an assertion: a test waits on an event or a state', async () => {
    const { code, offences } = await check({
      'test/unit/a.test.ts': lines(
        "import { setTimeout as sleep } from 'node:timers/promises'",
        "it('a', async () => {",
        '  await act()',
        '  await sleep(200)',
        '  expect(hook.received).toHaveLength(3)',
        '})',
        "it('b', async () => {",
        '  await new Promise((resolve) => setTimeout(resolve, 300))',
        '  // Nothing else came.',
        '  const told = hook.notifications()',
        '  expect(told).toEqual([])',
        '})',
        "it('c', async () => {",
        '  await setTimeout(100)',
        '  expect(spy).not.toHaveBeenCalled()',
        '})',
      ),
    })
    expect(code).toBe(1)
    expect(offences).toEqual(
      [4, 8, 14].map(
        (line) => `test/unit/a.test.ts:${line}: sleeps, then asserts: wait on an event or a state instead`,
      ),
    )
  })

  it('lets pass what follows the rules: reads, windows of real time, polls, sleeps before an action, text, benchmarks', async () => {
    expect(
      await check({
        'test/unit/a.test.ts': lines(
          `const env = { ...${ENV}, PAY_API_KEY: 'sk_test_x' }`,
          `if (${ENV}.CI === "1") skip()`,
          `const snippet = '${ENV}.HOME = 1; expect(elapsed).toBeLessThan(2)'`,
          `// ${ENV}.A = 1, then expect(Date.now() - t).toBeLessThan(9)`,
          'const inline = /process\\.env\\.A = "x"/',
          'expect(Date.parse(answer.now)).toBeGreaterThanOrEqual(before)',
          'expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(29 * DAY)',
          'expect(lines.length).toBeLessThanOrEqual(400)',
          'expect(parseDuration("1d")).toBe(86_400_000)',
          'for (let i = 0; i < 50 && !ready(); i++)',
          '  await new Promise((resolve) => setTimeout(resolve, 20))',
          'expect(ready()).toBe(true)',
          'while (!done()) await sleep(10)',
          'expect(done()).toBe(true)',
          'await new Promise((resolve) => setTimeout(resolve, 50))',
          'await client.call("GET", "/x")',
          'expect(answer.status).toBe(200)',
        ),
        'test/bench/lib.js': lines('expect(Date.now() - started).toBeLessThan(200)'),
        'test/fixtures/x.test.ts': lines(`${ENV}.A = "1"`),
      }),
    ).toEqual({ code: 0, offences: [] })
  })
})
