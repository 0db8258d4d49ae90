import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { configFile, freshConfigDir, isRoot, modeOf, writeConfig } from '../../helpers/config-files.js'
import { runInProcess } from '../../helpers/in-process.js'
import { startKeyServer } from '../../helpers/key-server.js'
import { keyedSandboxDir } from '../../helpers/profiles.js'

const KEY = 'sk_live_Co9rR2uP4tE6dK8y'
const HINT = 'pay has not changed it. Fix it by hand, or move it away and run `pay login` again.'

/** The commands that read the config: each must stop on a bad file, and never rewrite it. */
const READERS: [string, string[]][] = [
  ['links list', ['links', 'list']],
  ['profiles list', ['profiles', 'list']],
  ['login --with-key', ['login', '--with-key', '--no-verify', '--base-url', 'https://pay.example']],
  ['profiles use', ['profiles', 'use', 'sandbox']],
  ['profiles remove', ['profiles', 'remove', 'a']],
]

const CORRUPT: [string, string, string][] = [
  [
    'invalid JSON (the key is not quoted back)',
    '{"current":"a","profiles":{"a":{"api_key":sk_live_SECRETKEYVALUE1,"base_url":"https://a.example"}}}',
    "it is not valid JSON (Unexpected token 's').",
  ],
  ['an empty file', '', 'it is empty.'],
  [
    'truncated JSON',
    '{\n  "current": "a",\n  "profiles": {\n    "a": {\n      "api_key": "sk_live_SECRETKEYVAL',
    'it is not valid JSON (Unterminated string at line 5, column 39).',
  ],
  ['a JSON array', '[{"current":"a"}]', 'it is not a JSON object.'],
  [
    'a profile without api_key',
    '{"current":"a","profiles":{"a":{"base_url":"https://a.example"}}}',
    'profile "a" needs a string api_key and base_url.',
  ],
]

const CASES = CORRUPT.flatMap(([what, content, reason]) =>
  READERS.map(([command, args]) => ({ what, content, reason, command, args })),
)

describe.concurrent('a corrupt config file', () => {
  it.for(CASES)('$command stops on $what: exit 1, file unchanged', async (c, { expect, onTestFinished }) => {
    const server = await startKeyServer([KEY])
    onTestFinished(() => server.close())
    const dir = freshConfigDir()
    // Looser than pay allows: the file still holds keys, so it is tightened, though never rewritten.
    const file = writeConfig(dir, c.content, 0o640)
    const result = await runInProcess(c.args, { input: KEY, env: { PAY_CONFIG_DIR: dir } })
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `Error: The config file ${file} is corrupt: ${c.reason}\n${HINT}\n`,
    })
    expect(result.stderr).not.toContain('SECRET')
    expect(fs.readFileSync(file, 'utf8')).toBe(c.content)
    expect(modeOf(file).toString(8)).toBe('600')
    expect(fs.readdirSync(dir)).toEqual(['config.json'])
  })

  it('is reported as JSON on stderr under --json', async ({ expect }) => {
    const dir = freshConfigDir()
    const file = writeConfig(dir, '[]')
    const result = await runInProcess(['links', 'list', '--json'], { env: { PAY_CONFIG_DIR: dir } })
    expect([result.code, result.stdout]).toEqual([1, ''])
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        status: null,
        kind: 'general',
        exit_code: 1,
        message: `The config file ${file} is corrupt: it is not a JSON object.`,
        hint: HINT,
      },
    })
    expect(fs.readFileSync(file, 'utf8')).toBe('[]')
  })
})

const STORED = { current: 'a', profiles: { a: { api_key: KEY, base_url: 'https://a.example' } } }
const WRITERS: [string, string[]][] = [
  ['login --with-key', ['login', '--with-key', '--no-verify', '-p', 'b', '--base-url', 'https://b.example']],
  ['profiles use', ['profiles', 'use', 'sandbox']],
  ['profiles remove', ['profiles', 'remove', 'a']],
]
const WRITE_HINT = 'pay has not changed it. Make it writable to save profiles.'

describe.concurrent('a config that cannot be written', () => {
  it.for(WRITERS)(
    '%s refuses a read-only (0400) file: exit 1, never replaced',
    async ([, args], { expect }) => {
      // The owner write bit is checked, not access(2): conf renames a temp file over the old one,
      // which a read-only file in a writable directory would not stop, and root ignores modes.
      const dir = freshConfigDir()
      const file = writeConfig(dir, STORED, 0o400)
      const before = fs.readFileSync(file, 'utf8')
      const result = await runInProcess(args, { input: 'sk_live_NEWKEYnewkey', env: { PAY_CONFIG_DIR: dir } })
      expect(result).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `Error: Could not write the config file ${file}: the file is read-only.\n${WRITE_HINT}\n`,
      })
      expect(fs.readFileSync(file, 'utf8')).toBe(before)
      expect(modeOf(file).toString(8)).toBe('400')
      expect(fs.readdirSync(dir)).toEqual(['config.json'])
    },
  )

  it.for(WRITERS)(
    '%s refuses a read-only (0500) directory: exit 1, nothing written',
    async ([, args], { expect, onTestFinished }) => {
      const dir = freshConfigDir()
      const file = writeConfig(dir, STORED, 0o600, 0o500)
      onTestFinished(() => fs.chmodSync(dir, 0o700))
      const before = fs.readFileSync(file, 'utf8')
      const result = await runInProcess(args, { input: 'sk_live_NEWKEYnewkey', env: { PAY_CONFIG_DIR: dir } })
      expect(result).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `Error: Could not write the config file ${file}: the directory ${dir} is read-only.\n${WRITE_HINT}\n`,
      })
      expect(fs.readFileSync(file, 'utf8')).toBe(before)
      expect(fs.readdirSync(dir)).toEqual(['config.json'])
    },
  )

  it('still reads a read-only file', async ({ expect }) => {
    const dir = freshConfigDir()
    const file = writeConfig(dir, STORED, 0o400, 0o500)
    const sandbox = keyedSandboxDir()
    const result = await runInProcess(['profiles', 'list'], {
      env: { PAY_CONFIG_DIR: dir, PAY_SANDBOX_DIR: sandbox.dir },
    })
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout:
        `sandbox\tfalse\thttp://127.0.0.1:1\t${sandbox.shown}\tbuilt-in\n` +
        'a\ttrue\thttps://a.example\tsk_l…dK8y\tfile\n',
      stderr: '',
    })
    expect(modeOf(file).toString(8)).toBe('400')
  })

  it.for(READERS)(
    '%s stops when config.json is a directory: exit 1, left alone',
    async ([, args], { expect }) => {
      const dir = freshConfigDir()
      fs.mkdirSync(configFile(dir), { recursive: true })
      fs.writeFileSync(path.join(configFile(dir), 'keep'), 'x')
      const result = await runInProcess(args, { input: KEY, env: { PAY_CONFIG_DIR: dir } })
      expect(result).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `Error: Could not read the config file ${configFile(dir)}: it is a directory, not a file.\npay has not changed it.\n`,
      })
      expect(fs.readdirSync(configFile(dir))).toEqual(['keep'])
    },
  )

  it.for(READERS)('%s stops when PAY_CONFIG_DIR is a file: exit 1', async ([, args], { expect }) => {
    const dir = path.join(tempDir('pay-cfg-'), 'not-a-dir')
    fs.writeFileSync(dir, 'x')
    const result = await runInProcess(args, { input: KEY, env: { PAY_CONFIG_DIR: dir } })
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `Error: The config directory ${dir} is not a directory.\nPoint PAY_CONFIG_DIR at a directory.\n`,
    })
    expect(fs.readFileSync(dir, 'utf8')).toBe('x')
  })

  // Root reads any file whatever its mode, so an unreadable file can only be provoked as another user.
  it.skipIf(isRoot)('stops on a file it may not read (0000): exit 1, left alone', async ({ expect }) => {
    const dir = freshConfigDir()
    const file = writeConfig(dir, STORED, 0o000)
    const result = await runInProcess(['profiles', 'list'], { env: { PAY_CONFIG_DIR: dir } })
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `Error: Could not read the config file ${file}: permission denied.\npay has not changed it.\n`,
    })
    expect(modeOf(file)).toBe(0)
  })
})
