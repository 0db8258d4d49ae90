import fs from 'node:fs'
import { PayError } from '../errors.js'
import type { BulkResult } from './runner.js'

const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value)

/**
 * The --report CSV: each result is written (unbuffered) the moment it is known, so a run that
 * is killed still leaves a line for every id it finished.
 */
export class CsvReport {
  private readonly fd: number

  constructor(readonly file: string) {
    try {
      this.fd = fs.openSync(file, 'w', 0o644)
    } catch (error) {
      throw new PayError(`--report: cannot write ${file}: ${(error as Error).message}`, { kind: 'usage' })
    }
    fs.writeSync(this.fd, 'id,ok,status,error,at\n')
  }

  write(result: BulkResult): void {
    const row = [result.id, String(result.ok), result.status, result.error ?? '', new Date().toISOString()]
    fs.writeSync(this.fd, `${row.map(csvField).join(',')}\n`)
  }

  close(): void {
    fs.closeSync(this.fd)
  }
}
