import { describe, expect, it } from 'vitest'
import { moveLeadingGlobalFlags, withoutGlobalFlags } from '../../../src/cli/argv.js'

describe('moveLeadingGlobalFlags', () => {
  it('moves global flags written before the command to after it', () => {
    expect(moveLeadingGlobalFlags(['-p', 'sandbox', 'links', 'list'])).toEqual([
      'links',
      'list',
      '-p',
      'sandbox',
    ])
    expect(moveLeadingGlobalFlags(['--json', '-psandbox', '--timeout=5', 'links', 'get', 'x'])).toEqual([
      'links',
      'get',
      'x',
      '--json',
      '-psandbox',
      '--timeout=5',
    ])
  })

  it('moves --jq and its expression, and --jsonl, as it moves --json', () => {
    expect(moveLeadingGlobalFlags(['--jq', '.[]._id', '--jsonl', 'links', 'list'])).toEqual([
      'links',
      'list',
      '--jq',
      '.[]._id',
      '--jsonl',
    ])
    expect(moveLeadingGlobalFlags(['--jq=.title', 'links', 'get', 'x'])).toEqual([
      'links',
      'get',
      'x',
      '--jq=.title',
    ])
  })

  it('keeps them before a `--` separator, and leaves everything else alone', () => {
    expect(moveLeadingGlobalFlags(['--debug', 'subs', 'cancel', '--', '-x'])).toEqual([
      'subs',
      'cancel',
      '--debug',
      '--',
      '-x',
    ])
    expect(moveLeadingGlobalFlags(['links', 'list', '-p', 'sandbox'])).toEqual([
      'links',
      'list',
      '-p',
      'sandbox',
    ])
    expect(moveLeadingGlobalFlags(['-p'])).toEqual(['-p'])
    expect(moveLeadingGlobalFlags(['--json'])).toEqual(['--json'])
  })
})

describe('withoutGlobalFlags', () => {
  it("takes pay's global flags off a plugin command's arguments, in every form, and nothing after --", () => {
    expect(
      withoutGlobalFlags([
        'bash',
        '-p',
        'sandbox',
        '--json',
        '--profile=live',
        '-plive',
        '--timeout',
        '5',
        '--debug',
      ]),
    ).toEqual(['bash'])
    expect(withoutGlobalFlags(['--refresh-cache', '--base-url', 'https://x', '-r'])).toEqual([
      '--refresh-cache',
      '-r',
    ])
    expect(withoutGlobalFlags(['zsh', '--', '-p', 'x'])).toEqual(['zsh', '--', '-p', 'x'])
  })
})
