import { describe, expect, it } from 'vitest'
import { moveLeadingGlobalFlags } from '../../../src/cli/argv.js'

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
