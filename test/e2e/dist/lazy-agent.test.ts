import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'

/**
 * The MCP SDK, and what it brings (zod, ajv, and the HTTP servers of its other transports:
 * express, hono), load for `pay mcp` alone: scripts/bundle.mjs keeps them out of the bundle, and
 * src/agent/server.ts requires them from node_modules only when it serves. Seen from outside the
 * bundle: a preloaded hook writes down each package required by name.
 */
const dir = tempDir('pay-lazy-agent-')
const hook = path.join(dir, 'hook.cjs')
fs.writeFileSync(
  hook,
  `const Module = require('node:module')
const fs = require('node:fs')
const load = Module._load
Module._load = function (request, ...rest) {
  if (/^(@modelcontextprotocol\\/|zod|ajv|express|hono|@hono\\/)/.test(request)) fs.appendFileSync(process.env.PAY_TEST_LOADED, request + '\\n')
  return load.call(this, request, ...rest)
}
`,
)

async function run(args: string[], env: Record<string, string> = {}, input?: string) {
  const loadedFile = path.join(tempDir('pay-lazy-run-'), 'loaded.txt')
  const result = await runCli(args, {
    input,
    env: { ...env, NODE_OPTIONS: `--require ${hook}`, PAY_TEST_LOADED: loadedFile },
  })
  const loaded = fs.existsSync(loadedFile) ? fs.readFileSync(loadedFile, 'utf8').trim().split('\n') : []
  return { code: result.code, loaded: [...new Set(loaded)] }
}

describe('the MCP SDK loads only for pay mcp', () => {
  test('pay --version, pay links get and pay commands load none of it', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, loaded: [] })
    const get = await run(['links', 'get', 'abc'], {
      PAY_API_KEY: 'sk_test_lazy',
      PAY_BASE_URL: 'http://127.0.0.1:1',
    })
    expect(get).toEqual({ code: 6, loaded: [] })
    expect(await run(['commands', '--json'])).toEqual({ code: 0, loaded: [] })
  })

  test('pay mcp loads the SDK’s server, and none of the HTTP servers of its other transports', async () => {
    const mcp = await run(['mcp', '-p', 'sandbox'], {}, '')
    expect(mcp.code).toBe(0)
    expect(mcp.loaded).toContain('@modelcontextprotocol/sdk/server/index.js')
    expect(mcp.loaded).toContain('@modelcontextprotocol/sdk/server/stdio.js')
    expect(mcp.loaded.filter((name) => /^(express|hono|@hono\/)/.test(name))).toEqual([])
  })
})
