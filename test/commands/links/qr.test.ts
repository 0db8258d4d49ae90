import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { type Json, seedLink } from '../../helpers/links.js'
import { decodeModules, decodePng, plainDrawingModules, svgModules } from '../../helpers/qr.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

describe('against a sandbox', () => {
  /** `links qr`, against a real sandbox (stdout piped). */

  let sandbox: TestSandbox
  let link: Json
  const MISSING = '65a1f0c2e4b0a1b2c3d4e5f6'

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    link = await seedLink(sandbox, { title: 'Invoice 1042' })
  })

  afterAll(async () => {
    await sandbox.close()
  })

  const pay = (args: string[], env: Record<string, string> = {}) =>
    runInProcess(args, { env: { ...sandbox.env, ...env } })

  describe.concurrent('links qr', () => {
    test('piped: the drawing decodes to the payment_url, which follows it on the last line', async () => {
      const result = await pay(['links', 'qr', link._id])
      expect(result.code).toBe(0)
      expect(result.stderr).toBe('')
      const lines = result.stdout.split('\n')
      expect(lines.pop()).toBe('')
      expect(lines.pop()).toBe(link.payment_url)
      expect(lines.join('')).toMatch(/^[ █▀▄]+$/)
      expect(decodeModules(plainDrawingModules(lines))).toBe(link.payment_url)
    })

    test('--output FILE.png writes an image that decodes to the payment_url', async () => {
      const file = path.join(tempDir(), 'link.png')
      const result = await pay(['links', 'qr', link._id, '--output', file])
      expect(result).toMatchObject({
        code: 0,
        stdout: '',
        stderr: `Wrote the QR code of ${link.payment_url} to ${file}.\n`,
      })
      expect(decodePng(file)).toBe(link.payment_url)
      expect(fs.readdirSync(path.dirname(file))).toEqual(['link.png'])
    })

    test('--output FILE.svg writes an SVG of the same code; --json says so', async () => {
      const file = path.join(tempDir(), 'link.svg')
      const result = await pay(['links', 'qr', link._id, '-o', file, '--json'])
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({
        _id: link._id,
        payment_url: link.payment_url,
        output: file,
      })
      const svg = fs.readFileSync(file, 'utf8')
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
      expect(decodeModules(svgModules(svg))).toBe(link.payment_url)
    })

    test('an unknown id: exit 5 and no file', async () => {
      const dir = tempDir()
      const result = await pay(['links', 'qr', MISSING, '--output', path.join(dir, 'x.png')])
      expect(result).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Payment link not found.\n' })
      expect(fs.readdirSync(dir)).toEqual([])
    })

    test('an existing file is kept unless --force', async () => {
      const file = path.join(tempDir(), 'keep.png')
      fs.writeFileSync(file, 'mine')
      const refused = await pay(['links', 'qr', link._id, '--output', file])
      expect(refused).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `Error: --output ${file}: the file exists.\nAdd --force to replace it.\n`,
      })
      expect(fs.readFileSync(file, 'utf8')).toBe('mine')
      expect(fs.readdirSync(path.dirname(file))).toEqual(['keep.png'])
      const forced = await pay(['links', 'qr', link._id, '--output', file, '--force'])
      expect(forced.code).toBe(0)
      expect(decodePng(file)).toBe(link.payment_url)
    })

    test('an image name other than .png or .svg is a usage error naming --output', async () => {
      const result = await pay(['links', 'qr', link._id, '--output', 'code.jpg'])
      expect(result.code).toBe(2)
      expect(result.stderr).toBe(
        'Error: --output: code.jpg is not a .png or .svg file name.\nSee `pay links qr --help`.\n',
      )
    })
  })
})
