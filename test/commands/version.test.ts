import { describe, expect, test } from 'vitest'
import { runInProcess } from '../helpers/in-process.js'

/** `pay version` and its flags (-v, --version), as the command answers them in this process. */

describe.concurrent('habits', () => {
  test('pay version, and with --json', async () => {
    const [text, json] = await Promise.all([runInProcess(['version']), runInProcess(['version', '--json'])])
    expect(text).toMatchObject({ code: 0, stderr: '' })
    expect(text.stdout).toBe(`pay-cli/0.1.0 ${process.platform}-${process.arch} node-${process.version}\n`)
    expect(JSON.parse(json.stdout)).toEqual({
      version: '0.1.0',
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
    })
  })
})

describe('pay -v, pay --help', () => {
  test('pay -v prints the version, like --version', async () => {
    const short = await runInProcess(['-v'])
    const long = await runInProcess(['--version'])
    expect(short).toMatchObject({ code: 0, stderr: '' })
    expect(short.stdout).toMatch(/^pay-cli\/\d+\.\d+\.\d+ \S+ node-v\d+/)
    expect(short.stdout).toBe(long.stdout)
  })
})
