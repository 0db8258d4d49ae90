import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { addIdCompletion } from '../../../../src/cli/completion/scripts.js'
import { cachedIds } from '../../../../src/config/id-cache.js'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'

/**
 * What completion will offer: the ids a command printed or made, for the profile its requests
 * went with, kept when it ends (src/runtime/seen-ids.ts); and what pay adds to oclif's scripts.
 */

describe('the ids a run printed are kept for its profile', () => {
  it('created, listed, a subscription and its charges; a delete takes them out', async () => {
    const env = { XDG_CACHE_HOME: tempDir('pay-seen-cache-'), PAY_SANDBOX_DIR: tempDir('pay-seen-sandbox-') }
    const pay = (...args: string[]) => runInProcess(['-p', 'sandbox', ...args], { env })
    const link = async (title: string) =>
      (
        await pay(
          'links',
          'create',
          '--email',
          'a@b.co',
          '--currency',
          'EUR',
          '--amount',
          '5',
          '--title',
          title,
          '-q',
        )
      ).stdout.trim()
    const [a, b] = [await link('A'), await link('B')]
    const ids = (kind: 'links' | 'subscriptions') => cachedIds(env, 'sandbox', kind)
    expect(ids('links')).toEqual([b, a])
    const packages = await runInProcess(['sandbox', 'packages', '-q'], { env })
    const sub = (
      await pay('subs', 'create', '--package-id', packages.stdout.split('\n')[2], '--email', 'a@b.co', '-q')
    ).stdout.trim()
    expect(ids('subscriptions')).toEqual([sub])
    // Later, the subscription has charges: payment links, which `subs get` shows.
    expect((await pay('sandbox', 'clock', 'advance', '40d')).code).toBe(0)
    const shown = await pay('subs', 'get', sub, '--json')
    const charges = (JSON.parse(shown.stdout).payment_links as { _id: string }[]).map((charge) => charge._id)
    expect(charges.length).toBeGreaterThan(0)
    expect(ids('links')).toEqual([...charges, b, a])
    expect((await pay('links', 'delete', a, '--yes', '-q')).code).toBe(0)
    expect(ids('links')).toEqual([...charges, b])
    // A list is kept in the order it came (newest first), ahead of what was there.
    expect((await pay('links', 'list', '--json')).code).toBe(0)
    expect(ids('links').slice(-1)).toEqual([b])
  })

  it('nothing for keys from the environment alone, or with PAY_ID_CACHE=0', async () => {
    const cache = tempDir('pay-seen-off-')
    const env = { XDG_CACHE_HOME: cache, PAY_SANDBOX_DIR: tempDir('pay-seen-sandbox-'), PAY_ID_CACHE: '0' }
    const made = await runInProcess(
      [
        '-p',
        'sandbox',
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
      ],
      { env },
    )
    expect(made.code).toBe(0)
    expect(fs.readdirSync(cache)).toEqual([])
  })
})

describe("what pay adds to oclif's completion scripts", () => {
  it('the ids first, in bash and zsh, once however often; no script, nothing written', () => {
    const cache = tempDir('pay-scripts-')
    const bash = path.join(cache, 'autocomplete', 'functions', 'bash', 'pay.bash')
    const zsh = path.join(cache, 'autocomplete', 'zsh_setup')
    addIdCompletion(cache, 'pay')
    expect(fs.existsSync(path.join(cache, 'autocomplete'))).toBe(false)
    fs.mkdirSync(path.dirname(bash), { recursive: true })
    fs.writeFileSync(bash, '_pay_autocomplete() { :; }\ncomplete -F _pay_autocomplete pay\n')
    fs.writeFileSync(zsh, 'compinit;\n')
    addIdCompletion(cache, 'pay')
    addIdCompletion(cache, 'pay')
    const bashText = fs.readFileSync(bash, 'utf8')
    expect(bashText.match(/complete -F _pay_complete_ids pay/g)).toHaveLength(1)
    expect(bashText).toContain('ids="$(pay __complete ids -- "$')
    expect(bashText.trimEnd().endsWith('complete -F _pay_complete_ids pay')).toBe(true)
    const zshText = fs.readFileSync(zsh, 'utf8')
    expect(zshText.startsWith('compinit;\n')).toBe(true)
    expect(zshText.match(/compdef _pay_complete_ids pay/g)).toHaveLength(1)
  })
})
