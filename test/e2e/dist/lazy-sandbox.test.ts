import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'

/**
 * The CLI reaches the sandbox through src/sandbox/index.ts alone, whose server and store load
 * only when a command runs a sandbox: any other command never loads libsql, the sandbox's native
 * store. Seen from outside the bundle, where libsql stays (scripts/bundle.mjs): a preloaded hook
 * writes down each time it is required.
 */
const dir = tempDir('pay-lazy-sandbox-')
const hook = path.join(dir, 'hook.cjs')
fs.writeFileSync(
  hook,
  `const Module = require('node:module')
const fs = require('node:fs')
const load = Module._load
Module._load = function (request, ...rest) {
  if (/^(libsql|@libsql\\/)/.test(request)) fs.appendFileSync(process.env.PAY_TEST_LOADED, request + '\\n')
  return load.call(this, request, ...rest)
}
`,
)

/** The run's exit code, and the libsql modules it loaded. */
async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; loaded: string[] }> {
  const loadedFile = path.join(tempDir('pay-lazy-run-'), 'loaded.txt')
  const result = await runCli(args, {
    env: { ...env, NODE_OPTIONS: `--require ${hook}`, PAY_TEST_LOADED: loadedFile },
  })
  const loaded = fs.existsSync(loadedFile) ? fs.readFileSync(loadedFile, 'utf8').trim().split('\n') : []
  return { code: result.code, loaded }
}

describe('the sandbox loads only where a command runs one', () => {
  test('pay --version and pay links get load no libsql', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, loaded: [] })
    // Nothing listens on port 1: exit 6, and no sandbox was asked for.
    const get = await run(['links', 'get', 'abc'], {
      PAY_API_KEY: 'sk_test_lazy',
      PAY_BASE_URL: 'http://127.0.0.1:1',
    })
    expect(get).toEqual({ code: 6, loaded: [] })
  })

  test('pay -p sandbox links list, which runs the sandbox in-process, loads it', async () => {
    const list = await run(['-p', 'sandbox', 'links', 'list', '--json'])
    expect(list.code).toBe(0)
    expect(list.loaded).toContain('libsql')
  })
})
