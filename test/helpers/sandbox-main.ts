/**
 * The sandbox alone in a process of its own, for tests that kill it (`kill -9`) or load it from
 * many clients: bundled from source by `bundleEntry` (processes.ts), started with
 * `[--dir D] [--port N] [--host H] [--key K ...]`. Prints one JSON line
 * `{"base_url","keys","packages"}` once listening, like `pay sandbox start --json`; stops on
 * SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util'
import { DEFAULT_SANDBOX_PORT } from '../../src/sandbox/constants.js'
import { startSandbox } from '../../src/sandbox/http/server.js'
import { sandboxDir } from '../../src/shared/sandbox-dir.js'

function fail(message: string, exitCode: number): never {
  process.stderr.write(`pay-sandbox: ${message}\n`)
  process.exit(exitCode)
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SANDBOX_PORT
  const port = Number(text)
  if (!/^[0-9]+$/.test(text) || port > 65535) fail(`invalid --port ${JSON.stringify(text)}`, 2)
  return port
}

let options: ReturnType<typeof parseOptions>
function parseOptions() {
  return parseArgs({
    options: {
      dir: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      key: { type: 'string', multiple: true },
    },
    strict: true,
    allowPositionals: false,
  }).values
}
try {
  options = parseOptions()
} catch (error) {
  fail((error as Error).message, 2)
}

try {
  const sandbox = await startSandbox({
    dir: options.dir ?? sandboxDir(process.env),
    port: parsePort(options.port),
    host: options.host,
    keys: options.key,
  })
  const stop = () => {
    sandbox.close().then(() => process.exit(0))
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  const packages = Object.values(sandbox.packages).flat()
  process.stdout.write(`${JSON.stringify({ base_url: sandbox.baseUrl, keys: sandbox.keys, packages })}\n`)
} catch (error) {
  fail((error as Error).message, 1)
}
