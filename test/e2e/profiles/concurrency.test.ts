import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { configFile, freshConfigDir, modeOf, readJson } from '../../helpers/config-files.js'

const keyFor = (name: string) => `sk_live_Concurrent_${name}_000000`

/** Ten `pay login --with-key` at once, each with its own profile name. */
async function loginAll(dir: string, names: string[]) {
  const results = await Promise.all(
    names.map((name) =>
      runCli(['login', '--with-key', '--no-verify', '-p', name, '--base-url', `https://${name}.example`], {
        input: keyFor(name),
        env: { PAY_CONFIG_DIR: dir },
      }),
    ),
  )
  // No keychain here (test/helpers/cli.ts): every key goes to the one file, under its lock.
  expect(results.map((r) => [r.code, r.stdout, r.stderr.split(' (')[0]])).toEqual(
    names.map((name) => [
      0,
      '',
      `no system keychain: key stored in plain text in ${configFile(dir)}\nSaved profile "${name}"`,
    ]),
  )
}

const stored = (names: string[]) =>
  Object.fromEntries(
    names.map((name) => [name, { api_key: keyFor(name), base_url: `https://${name}.example` }]),
  )

describe('concurrent pay login', () => {
  it('leaves a valid config holding every profile (10 at once into a fresh dir, then 10 more)', async () => {
    // Without the lock around read-modify-write, one round loses a profile most of the time; two
    // rounds make a pass by luck rare.
    const dir = freshConfigDir()
    const first = Array.from({ length: 10 }, (_, i) => `first${i}`)
    await loginAll(dir, first)
    expect(readJson(configFile(dir)).profiles).toEqual(stored(first))

    const second = Array.from({ length: 10 }, (_, i) => `second${i}`)
    await loginAll(dir, second)
    const config = readJson(configFile(dir))
    expect(config.profiles).toEqual(stored([...first, ...second]))
    expect(second).toContain(config.current)
    expect(modeOf(configFile(dir)).toString(8)).toBe('600')
    expect(fs.readdirSync(dir)).toEqual(['config.json'])
  })
})
