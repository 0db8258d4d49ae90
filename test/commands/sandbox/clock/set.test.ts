import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'

/**
 * `pay sandbox clock set DATE`. More in ../clock.test.ts (shown, moved, refused, reset on
 * the local store) and test/e2e/sandbox/clock.test.ts (through a `pay sandbox start` process).
 */

const LOCAL_ENV = () => ({ PAY_SANDBOX_DIR: tempDir('pay-clock-local-'), PAY_SANDBOX_PORT: '1' })

describe('sandbox clock set', () => {
  test('a date and time: the clock is there, said as JSON; --jq shapes it; the clock shows it after', async () => {
    const env = LOCAL_ENV()
    const set = await runInProcess(['sandbox', 'clock', 'set', '2099-03-04T05:06:07Z', '--json'], { env })
    expect(set).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(set.stdout)).toEqual({ now: '2099-03-04T05:06:07.000Z', charges_created: 0 })
    const shown = await runInProcess(['sandbox', 'clock', '--jq', '.now'], { env })
    expect(shown.stdout).toMatch(/^2099-03-04T05:06:\d\d\.\d{3}Z\n$/)
    const later = await runInProcess(['sandbox', 'clock', 'set', '2099-03-05', '--jq', '.now'], { env })
    expect(later).toMatchObject({ code: 0, stdout: '2099-03-05T00:00:00.000Z\n', stderr: '' })
  })

  test('no date: exit 2, the clock unchanged', async () => {
    const env = LOCAL_ENV()
    const missing = await runInProcess(['sandbox', 'clock', 'set'], { env })
    expect(missing).toMatchObject({ code: 2, stdout: '' })
    expect(missing.stderr).toMatch(/^Error: Missing 1 required arg/)
    expect(
      JSON.parse((await runInProcess(['sandbox', 'clock', '--json'], { env })).stdout).offset_seconds,
    ).toBe(0)
  })
})
