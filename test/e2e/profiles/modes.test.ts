import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'
import { configFile, freshConfigDir, modeOf, writeConfig } from '../../helpers/config-files.js'
import { startKeyServer } from '../../helpers/key-server.js'

const KEY = 'sk_live_Mo7dE5sT3fI1lE9x'

describe.concurrent('config file and directory modes', () => {
  it('creates the file 0600 in a 0700 directory on pay login', async ({ expect }) => {
    const dir = path.join(freshConfigDir(), 'nested', 'pay')
    const result = await runCli(['login', '--with-key', '--no-verify', '--base-url', 'https://pay.example'], {
      input: KEY,
      env: { PAY_CONFIG_DIR: dir },
    })
    expect(result.code).toBe(0)
    expect(modeOf(configFile(dir)).toString(8)).toBe('600')
    expect(modeOf(dir).toString(8)).toBe('700')
    expect(fs.readdirSync(dir)).toEqual(['config.json'])
  })

  it('keeps the file 0600 and the directory 0700 through every write', async ({ expect }) => {
    const dir = freshConfigDir()
    const env = { PAY_CONFIG_DIR: dir }
    const steps: [string[], string][] = [
      [['login', '--with-key', '--no-verify', '--base-url', 'https://a.example', '-p', 'a'], KEY],
      [['login', '--with-key', '--no-verify', '--base-url', 'https://b.example', '-p', 'b'], KEY],
      [['profiles', 'use', 'a'], ''],
      [['profiles', 'remove', 'b'], ''],
      [['profiles', 'use', 'sandbox'], ''],
      [['profiles', 'remove', 'a'], ''],
    ]
    for (const [args, input] of steps) {
      const result = await runCli(args, { input, env })
      expect([args, result.code]).toEqual([args, 0])
      expect([args, modeOf(configFile(dir)).toString(8), modeOf(dir).toString(8)]).toEqual([
        args,
        '600',
        '700',
      ])
      // No temp file nor lock left behind.
      expect(fs.readdirSync(dir)).toEqual(['config.json'])
    }
    expect(JSON.parse(fs.readFileSync(configFile(dir), 'utf8'))).toEqual({ current: 'sandbox', profiles: {} })
  })

  const reads: [string[], (base: string, file: string) => string][] = [
    [['profiles', 'list'], () => ''],
    [['links', 'list', '--json'], () => ''],
    [
      ['login', '--with-key', '--no-verify', '-p', 'live'],
      (base, file) =>
        `no system keychain: key stored in plain text in ${file}\n` +
        `Saved profile "live" (key sk_l…lE9x in the config file, ${base}). It is now the current profile.\n`,
    ],
  ]
  it.for(reads)(
    'tightens a 0644 file in a 0755 directory on %j',
    async ([args, stderr], { expect, onTestFinished }) => {
      const server = await startKeyServer([KEY])
      onTestFinished(() => server.close())
      const dir = freshConfigDir()
      const file = writeConfig(
        dir,
        { current: 'live', profiles: { live: { api_key: KEY, base_url: server.baseUrl } } },
        0o644,
        0o755,
      )
      const result = await runCli(args, { input: KEY, env: { PAY_CONFIG_DIR: dir } })
      expect([result.code, result.stderr]).toEqual([0, stderr(server.baseUrl, file)])
      expect(modeOf(file).toString(8)).toBe('600')
      expect(modeOf(dir).toString(8)).toBe('700')
    },
  )

  it('leaves a shared sticky directory (like /tmp) as it is, and still tightens the file', async ({
    expect,
  }) => {
    const dir = path.join(tempDir('pay-shared-'), 'shared')
    const file = writeConfig(dir, { profiles: {} }, 0o644, 0o1777)
    const result = await runCli(['profiles', 'list'], { env: { PAY_CONFIG_DIR: dir } })
    expect(result.code).toBe(0)
    expect(modeOf(dir).toString(8)).toBe('1777')
    expect(modeOf(file).toString(8)).toBe('600')
  })

  it('only takes bits away: a read-only 0444 file becomes 0400, not writable', async ({ expect }) => {
    const dir = freshConfigDir()
    const file = writeConfig(dir, { profiles: {} }, 0o444, 0o755)
    const result = await runCli(['profiles', 'list'], { env: { PAY_CONFIG_DIR: dir } })
    expect(result.code).toBe(0)
    expect(modeOf(file).toString(8)).toBe('400')
    expect(modeOf(dir).toString(8)).toBe('700')
  })
})
