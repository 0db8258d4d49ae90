import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { cleanEnv, ROOT, tempDir } from '../../helpers/cli.js'

/**
 * The packed tarball installs with `npm install -g` into an empty prefix (registry only) and
 * the installed `pay` works. Uses the dist/ that `npm test` built.
 */
describe('npm pack, then npm install -g', () => {
  test('the installed pay runs --version, --help and links create against the sandbox', () => {
    const work = tempDir('pay-pack-')
    const npm = (args: string[], cwd = ROOT) =>
      execFileSync('npm', args, {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, npm_config_loglevel: 'error' },
      })
    const tarball = npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', work])
      .trim()
      .split('\n')
      .pop()
    expect(tarball).toMatch(/^pay-cli-\d+\.\d+\.\d+\.tgz$/)
    const prefix = path.join(work, 'prefix')
    npm(
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', path.join(work, tarball as string)],
      work,
    )

    const pay = path.join(prefix, 'bin', 'pay')
    const env = cleanEnv({ XDG_CACHE_HOME: tempDir('pay-cache-') })
    const run = (args: string[]) => spawnSync(pay, args, { cwd: work, env, encoding: 'utf8' })

    const version = run(['--version'])
    expect(version.status).toBe(0)
    const { version: expected } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
    expect(version.stdout).toMatch(new RegExp(`^pay-cli/${expected.replace(/\./g, '\\.')} `))

    const help = run(['--help'])
    expect(help.status).toBe(0)
    for (const topic of ['links', 'subs', 'token', 'profiles', 'sandbox', 'login', 'autocomplete']) {
      expect(help.stdout).toContain(topic)
    }

    const created = run([
      '-p',
      'sandbox',
      'links',
      'create',
      '--email',
      'jane@example.com',
      '--currency',
      'EUR',
      '--amount',
      '25.50',
      '--title',
      'Packed',
      '--json',
    ])
    expect(created.stderr).toBe('')
    expect(created.status).toBe(0)
    const link = JSON.parse(created.stdout)
    expect(link).toMatchObject({
      amount: 25.5,
      currency: 'EUR',
      title: 'Packed',
      status: 'Active',
      paid: false,
    })

    const listed = run(['-p', 'sandbox', 'links', 'list', '-q'])
    expect(listed.status).toBe(0)
    expect(listed.stdout).toBe(`${link._id}\n`)

    // Nothing of the development tree leaks into the package.
    const files = execFileSync('tar', ['-tzf', path.join(work, tarball as string)], { encoding: 'utf8' })
    expect(files).not.toMatch(/package\/(src|test|scripts)\//)
    expect(files).toContain('package/dist/pay.cjs')
  }, 240_000)
})
