import { describe, expect, test } from 'vitest'
import { runInProcess } from '../../helpers/in-process.js'

/**
 * `pay autocomplete fish`: the completion script of pay's own for fish, which oclif's plugin does
 * not know. That fish completes with it, ids included, is test/e2e/dist/completion.test.ts.
 */

describe('autocomplete fish', () => {
  test('prints the script to save where fish looks, asking pay __complete for every word', async () => {
    const result = await runInProcess(['autocomplete', 'fish'])
    expect([result.code, result.stderr]).toEqual([0, ''])
    expect(result.stdout.split('\n').slice(0, 2)).toEqual([
      '# Completion of pay for fish, from `pay autocomplete fish`:',
      '#   pay autocomplete fish > ~/.config/fish/completions/pay.fish',
    ])
    expect(result.stdout).toContain(
      '    set -l found (pay __complete fish -- $words "$current" 2>/dev/null)\n',
    )
    expect(result.stdout.endsWith("complete -c pay -f -a '(__pay_complete)'\n")).toBe(true)
  })

  test('--json: the shell and the script; global flags are taken', async () => {
    const [json, flagged] = await Promise.all([
      runInProcess(['autocomplete', 'fish', '--json']),
      runInProcess(['-p', 'sandbox', 'autocomplete', 'fish']),
    ])
    const plain = await runInProcess(['autocomplete', 'fish'])
    expect(JSON.parse(json.stdout)).toEqual({ shell: 'fish', script: plain.stdout })
    expect(flagged).toEqual(plain)
  })
})
