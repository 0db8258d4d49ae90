import { describe, expect, it } from 'vitest'
import { portHint } from '../../../../src/work/sandbox/start/view.js'

/**
 * What `sandbox start` says when `pay -p sandbox` would not find it where it listens: the port
 * to export, which its base URL leaves out when it is the scheme's default (80 for http).
 */
describe('portHint', () => {
  it('names the port of a base URL that leaves it out: 80', () => {
    expect(portHint('http://127.0.0.1', '127.0.0.1', {})).toBe(
      [
        'pay -p sandbox looks for a sandbox on port 4010, not 80. To use this one:',
        '  export PAY_SANDBOX_PORT=80',
        'or: pay -p sandbox --base-url http://127.0.0.1 …',
      ].join('\n'),
    )
    expect(portHint('http://127.0.0.1', '127.0.0.1', { PAY_SANDBOX_PORT: '80' })).toBeUndefined()
  })

  it('the port of the base URL otherwise, with the sandbox directory its proof needs', () => {
    expect(portHint('http://127.0.0.1:4999', '127.0.0.1', { PAY_SANDBOX_DIR: '/tmp/my sandbox' })).toBe(
      [
        'pay -p sandbox looks for a sandbox on port 4010, not 4999. To use this one:',
        "  export PAY_SANDBOX_PORT=4999 PAY_SANDBOX_DIR='/tmp/my sandbox'",
        'or: pay -p sandbox --base-url http://127.0.0.1:4999 …',
      ].join('\n'),
    )
    expect(portHint('http://127.0.0.1:4010', 'localhost', {})).toBeUndefined()
    expect(portHint('http://192.0.2.7:80', '192.0.2.7', { PAY_SANDBOX_PORT: '80' })).toBe(
      [
        'pay -p sandbox looks for a sandbox at 127.0.0.1:80. To use this one:',
        '  pay -p sandbox --base-url http://192.0.2.7:80 …',
      ].join('\n'),
    )
  })
})
