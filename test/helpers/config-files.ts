import fs from 'node:fs'
import path from 'node:path'
import { expect } from 'vitest'
import { PayError } from '../../src/errors.js'
import { tempDir } from './cli.js'

/** A fresh config dir (not yet created) inside a new temp dir, as PAY_CONFIG_DIR. */
export function freshConfigDir(): string {
  return path.join(tempDir('pay-cfg-'), 'pay')
}

export const configFile = (dir: string) => path.join(dir, 'config.json')

/** Writes config.json (an object as JSON, a string as is) with the given file and dir modes. */
export function writeConfig(dir: string, content: unknown, fileMode = 0o600, dirMode = 0o700): string {
  fs.mkdirSync(dir, { recursive: true })
  const file = configFile(dir)
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  fs.chmodSync(file, fileMode)
  fs.chmodSync(dir, dirMode)
  return file
}

/** Permission bits of a file or directory (0o600, 0o755, …). */
export const modeOf = (target: string) => fs.statSync(target).mode & 0o7777

export const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'))

/** Root ignores file modes: permission-denied paths cannot be provoked when running as root. */
export const isRoot = process.getuid?.() === 0

/** The PayError that `run` throws (the test fails if it throws nothing, or something else). */
export function thrown(run: () => unknown): PayError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    return error as PayError
  }
  throw new Error('expected an error')
}

/** The PayError that `promise` rejects with (the test fails if it resolves, or rejects with something else). */
export async function rejected(promise: Promise<unknown>): Promise<PayError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    return error as PayError
  }
  throw new Error('expected an error')
}
