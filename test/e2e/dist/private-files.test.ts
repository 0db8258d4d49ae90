import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { BIN, cleanEnv, tempDir } from '../../helpers/cli.js'

/**
 * What bin/run.js itself writes and loads, as a local attacker would try it: plugins planted in
 * pay's data dir are not loaded, and the caches (compiled code, shell completion scripts) are
 * created 0700/0600 in pay's own cache dir whatever the umask, never in the shared temp dir.
 */

const onPosix = process.platform !== 'win32'
const NODE_MAJOR = Number(process.versions.node.split('.')[0])

/** Runs bin/run.js under `umask` (in sh), with a clean environment plus `env`. */
function payUnder(umask: string, args: string[], env: Record<string, string | undefined>) {
  const result = spawnSync('sh', ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, BIN, ...args], {
    env: cleanEnv(env),
    encoding: 'utf8',
    timeout: 30_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Every file and directory under `dir` with its permission bits, as "0700 relative/path". */
function modesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map((entry) => path.join(dir, String(entry)))
    .map(
      (entry) =>
        `${(fs.lstatSync(entry).mode & 0o7777).toString(8).padStart(4, '0')} ${path.relative(dir, entry)}`,
    )
}

/**
 * An oclif user plugin, as oclif would install one: named in `<data dir>/package.json`, its code
 * in `<data dir>/node_modules/evil`, with an init hook (run before any command) that writes
 * `marker`.
 */
function plantPlugin(dataDir: string, marker: string): void {
  const plugin = path.join(dataDir, 'node_modules', 'evil')
  fs.mkdirSync(plugin, { recursive: true })
  fs.writeFileSync(
    path.join(dataDir, 'package.json'),
    JSON.stringify({
      private: true,
      oclif: { schema: 1, plugins: [{ name: 'evil', type: 'user' }] },
      dependencies: { evil: '1.0.0' },
    }),
  )
  fs.writeFileSync(
    path.join(plugin, 'package.json'),
    JSON.stringify({
      name: 'evil',
      version: '1.0.0',
      main: 'index.js',
      oclif: { hooks: { init: './hook.cjs' } },
    }),
  )
  fs.writeFileSync(path.join(plugin, 'index.js'), 'module.exports = {}\n')
  fs.writeFileSync(
    path.join(plugin, 'hook.cjs'),
    `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')\nmodule.exports = async () => {}\n`,
  )
}

describe.concurrent('user plugins', () => {
  test.for([
    [
      '$XDG_DATA_HOME/pay',
      (root: string) => ({ XDG_DATA_HOME: root }),
      (root: string) => path.join(root, 'pay'),
    ],
    ['$PAY_DATA_DIR', (root: string) => ({ PAY_DATA_DIR: root }), (root: string) => root],
  ] as const)(
    'a plugin planted in %s runs no code: pay version and pay help are pay alone',
    ([, env, dataDir]) => {
      const root = tempDir('pay-data-')
      const marker = path.join(tempDir('pay-marker-'), 'ran')
      plantPlugin(dataDir(root), marker)
      const version = payUnder('022', ['version'], env(root))
      expect(version.code).toBe(0)
      expect(version.stdout).toMatch(/^pay-cli\/\d+\.\d+\.\d+ /)
      expect(version.stderr).toBe('')
      const help = payUnder('022', ['--help'], env(root))
      expect(help.code).toBe(0)
      expect(help.stdout).not.toContain('evil')
      expect(fs.existsSync(marker)).toBe(false)
    },
  )
})

describe.runIf(onPosix).concurrent('the caches under umask 000', () => {
  test('compiled code and the completion cache: directories 0700, files 0600, in pay cache dir only', () => {
    const cache = path.join(tempDir('pay-cache-home-'), 'cache')
    const tmp = tempDir('pay-tmp-')
    const env = { XDG_CACHE_HOME: cache, TMPDIR: tmp }
    for (const args of [
      ['version'],
      ['autocomplete', 'bash'],
      ['version'],
      ['autocomplete', '--refresh-cache'],
    ]) {
      const result = payUnder('000', args, env)
      expect([args, result.code]).toEqual([args, 0])
    }
    const modes = modesUnder(cache)
    // What is there: the code cache of this Node, the completion scripts shells source.
    if (NODE_MAJOR >= 22)
      expect(modes).toContainEqual(expect.stringMatching(/^0700 pay\/compile-cache\/v\d+/))
    else expect(modes).toContainEqual(expect.stringMatching(/^0600 pay\/v8-v\d+.*\.bin$/))
    expect(modes).toContain('0600 pay/autocomplete/bash_setup')
    expect(modes).toContain('0600 pay/autocomplete/functions/bash/pay.bash')
    expect(modes).toContain('0600 pay/autocomplete/zsh_setup')
    // Nothing anyone else may read or write.
    for (const entry of modes) {
      const isDir = fs.statSync(path.join(cache, entry.slice(5))).isDirectory()
      expect(entry).toMatch(isDir ? /^0700 / : /^0600 /)
    }
    expect((fs.statSync(cache).mode & 0o777).toString(8)).toBe('700')
    // Node's compile cache defaults to the shared temp dir: not for pay.
    expect(fs.readdirSync(tmp)).toEqual([])
  })

  test('a cache dir left open to others (0777) is tightened to 0700 on the next start', () => {
    const cache = tempDir('pay-cache-')
    fs.mkdirSync(path.join(cache, 'pay'))
    fs.chmodSync(path.join(cache, 'pay'), 0o777)
    const result = payUnder('000', ['version'], { XDG_CACHE_HOME: cache })
    expect(result.code).toBe(0)
    expect((fs.statSync(path.join(cache, 'pay')).mode & 0o7777).toString(8)).toBe('700')
  })
})
