import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { browserCommand, browserEnv, openInBrowser } from '../../../src/runtime/browser.js'
import { isPlainWebUrl } from '../../../src/values.js'
import { tempDir } from '../../helpers/cli.js'

/**
 * How `links open` starts a browser: the exact program and argv on each platform, for URLs a
 * hostile service could hand out, and the environment it gets.
 */

const RUNDLL32 = 'C:\\Windows\\System32\\rundll32.exe'

/** Characters RFC 3986 allows that a shell or cmd would read as syntax: each goes through as one argument. */
const ALLOWED = [
  'https://pay.example/checkout/pay?id=65a1f0c2e4b0a1b2c3d4e5f6',
  'https://pay.example/x&calc.exe',
  'https://pay.example/p?a=1&b=2&start=calc',
  'https://pay.example/a%20b%7Ccalc',
  'https://pay.example/p?a=$(id);b=!x!&c=(1)*[2],3+4=5@6~7',
  'http://127.0.0.1:4010/checkout/pay?id=1#top',
  'HTTPS://PAY.EXAMPLE/X',
]

/** What no real payment URL holds (a server escapes it): refused before any program starts. */
const REFUSED = [
  'https://pay.example/x|calc.exe',
  'https://pay.example/x^&calc.exe',
  'https://pay.example/%PATH%',
  'https://pay.example/x%',
  'https://pay.example/x%zz',
  'https://pay.example/x"&calc.exe&"',
  "https://pay.example/x'y",
  'https://pay.example/x`id`',
  'https://pay.example/x calc.exe',
  'https://pay.example/x\tcalc',
  'https://pay.example/x\ncalc',
  'https://pay.example/x\u0000',
  'https://pay.example/x\u001b[2J',
  'https://pay.example/x\u009b31m',
  'https://pay.example/x<y>',
  'https://pay.example/x\\y',
  'https://pay.example/x{y}',
  'https://pay.example/\u202eexe.pdf',
  'https://pay.exämple/',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'https://',
  '',
]

describe('isPlainWebUrl', () => {
  it.for(ALLOWED)('accepts %j', (url) => {
    expect(isPlainWebUrl(url)).toBe(true)
  })

  it.for(REFUSED)('refuses %j', (url) => {
    expect(isPlainWebUrl(url)).toBe(false)
  })
})

describe('browserCommand: the exact argv, the URL always one argument, never shell text', () => {
  it.for(ALLOWED)('%j on Linux, macOS and Windows', (url) => {
    expect(browserCommand(url, {}, 'linux')).toEqual({ command: 'xdg-open', args: [url], label: 'xdg-open' })
    expect(browserCommand(url, {}, 'freebsd')).toEqual({
      command: 'xdg-open',
      args: [url],
      label: 'xdg-open',
    })
    expect(browserCommand(url, {}, 'darwin')).toEqual({ command: 'open', args: [url], label: 'open' })
    expect(browserCommand(url, { SystemRoot: 'C:\\Windows' }, 'win32')).toEqual({
      command: RUNDLL32,
      args: ['url.dll,FileProtocolHandler', url],
      label: 'rundll32 url.dll',
    })
  })

  it('on Windows: rundll32 from the system directory, never cmd, PATH or the current directory', () => {
    const url = ALLOWED[1]
    expect(browserCommand(url, { SystemRoot: 'D:\\WINNT' }, 'win32').command).toBe(
      'D:\\WINNT\\System32\\rundll32.exe',
    )
    expect(browserCommand(url, { windir: 'E:\\Win' }, 'win32').command).toBe(
      'E:\\Win\\System32\\rundll32.exe',
    )
    expect(browserCommand(url, {}, 'win32').command).toBe(RUNDLL32)
    for (const platform of ['win32', 'linux', 'darwin'] as const) {
      const { command, args } = browserCommand(url, {}, platform)
      expect([command, ...args].join(' ')).not.toMatch(/\bcmd\b|\/c\b|\bstart\b/)
    }
  })

  it('BROWSER: run by sh with the URL as $1 on Linux and macOS; a program without a shell on Windows', () => {
    const url = ALLOWED[4]
    for (const platform of ['linux', 'darwin'] as const) {
      expect(browserCommand(url, { BROWSER: ' firefox --new-window ' }, platform)).toEqual({
        command: '/bin/sh',
        args: ['-c', 'firefox --new-window "$1"', 'sh', url],
        label: 'BROWSER (firefox --new-window)',
      })
    }
    expect(browserCommand(url, { BROWSER: 'C:\\Apps\\Firefox\\firefox.exe' }, 'win32')).toEqual({
      command: 'C:\\Apps\\Firefox\\firefox.exe',
      args: [url],
      label: 'BROWSER (C:\\Apps\\Firefox\\firefox.exe)',
    })
  })
})

describe('openInBrowser', () => {
  it.for(REFUSED)('hands %j to no program, whatever the platform', async (url) => {
    const dir = tempDir('pay-browser-unit-')
    const marker = path.join(dir, 'ran')
    const BROWSER = `touch ${marker} #`
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(await openInBrowser(url, { BROWSER, PATH: '' }, platform)).toBe(
        'the URL holds characters no web address has',
      )
    }
    expect(fs.existsSync(marker)).toBe(false)
  })

  it('starts the browser without PAY_API_KEY or any other PAY_* variable', async () => {
    const dir = tempDir('pay-browser-unit-')
    const file = path.join(dir, 'env')
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      BROWSER: `env > ${file} #`,
      PAY_API_KEY: 'sk_live_BrowserGetsNone_1',
      PAY_BASE_URL: 'https://api.pay.example',
      PAY_PROFILE: 'live',
      pay_config_dir: '/tmp/x',
      Pay_Sandbox_Dir: '/tmp/y',
    }
    expect(await openInBrowser('https://pay.example/checkout/pay?id=1', env, 'linux')).toBeUndefined()
    const seen = fs.readFileSync(file, 'utf8')
    expect(seen).toContain(`HOME=${dir}\n`)
    expect(seen).not.toMatch(/^pay_/im)
    expect(seen).not.toContain('sk_live_BrowserGetsNone_1')
  })
})

describe('browserEnv', () => {
  it('keeps everything but the PAY_ variables, whatever their case', () => {
    expect(
      browserEnv({
        PATH: '/bin',
        BROWSER: 'firefox',
        DISPLAY: ':0',
        PAY_API_KEY: 'sk_live_x',
        PAY_BASE_URL: 'https://a.example',
        pay_profile: 'live',
        Pay_Timeout: '3',
        PAYMENT_MODE: 'kept',
        NOT_PAY_API_KEY: 'kept',
      }),
    ).toEqual({
      PATH: '/bin',
      BROWSER: 'firefox',
      DISPLAY: ':0',
      PAYMENT_MODE: 'kept',
      NOT_PAY_API_KEY: 'kept',
    })
  })
})
