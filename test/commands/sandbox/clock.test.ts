import { describe, expect, test } from 'vitest'
import { DURATION_FORMS } from '../../../src/shared/duration.js'
import { tempDir } from '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'

/**
 * `pay sandbox clock [advance DURATION | set DATE]`: through the sandbox that serves the
 * profile (`GET/POST /_sandbox/clock`), else on the local store, like `sandbox pay`; what each
 * prints; the forms refused (exit 2, nothing changed); `pay sandbox reset` back to real time.
 */

const DAY = 86_400
const LOCAL_ENV = () => ({ PAY_SANDBOX_DIR: tempDir('pay-clock-local-'), PAY_SANDBOX_PORT: '1' })

describe('on the local store (no sandbox running)', () => {
  test('shows real time, moves forward, survives, and goes back to real time with a reset', async () => {
    const env = LOCAL_ENV()
    const dir = env.PAY_SANDBOX_DIR
    const start = await runInProcess(['sandbox', 'clock'], { env })
    expect(start.code).toBe(0)
    expect(start.stdout).toMatch(/^now\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\noffset_seconds\t0\n$/)
    expect(start.stderr).toBe(`Sandbox time is real time (the local sandbox store ${dir}).\n`)

    const advanced = await runInProcess(['sandbox', 'clock', 'advance', '30d', '--json'], { env })
    expect(advanced).toMatchObject({ code: 0, stderr: '' })
    const moved = JSON.parse(advanced.stdout)
    expect(Object.keys(moved)).toEqual(['now', 'charges_created'])
    expect(moved.charges_created).toBe(0)
    expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(29 * DAY * 1000)

    const shown = await runInProcess(['sandbox', 'clock', '--json'], { env })
    expect(JSON.parse(shown.stdout)).toEqual({ now: expect.any(String), offset_seconds: 30 * DAY })
    const piped = await runInProcess(['sandbox', 'clock'], { env })
    expect(piped.stderr).toBe(`Sandbox time is 30d ahead of real time (the local sandbox store ${dir}).\n`)

    const set = await runInProcess(['sandbox', 'clock', 'set', '2099-01-01'], { env })
    expect(set.code).toBe(0)
    expect(set.stdout).toBe('now\t2099-01-01T00:00:00.000Z\ncharges_created\t0\n')
    expect(set.stderr).toBe(
      `Sandbox time is now 2099-01-01T00:00:00.000Z (the local sandbox store ${dir}): no charge created.\n`,
    )

    const reset = await runInProcess(['sandbox', 'reset', '--json'], { env })
    expect(reset.code).toBe(0)
    expect(
      JSON.parse((await runInProcess(['sandbox', 'clock', '--json'], { env })).stdout).offset_seconds,
    ).toBe(0)
  })

  test('refuses, exit 2 and nothing changed: a duration that means nothing, a date that is none, a time gone by', async () => {
    const env = LOCAL_ENV()
    await runInProcess(['sandbox', 'clock', 'set', '2090-06-15T12:00:00Z'], { env })
    const before = JSON.parse(
      (await runInProcess(['sandbox', 'clock', '--json'], { env })).stdout,
    ).offset_seconds

    const duration = await runInProcess(['sandbox', 'clock', 'advance', '30 days'], { env })
    expect(duration).toMatchObject({ code: 2, stdout: '' })
    expect(duration.stderr).toBe(`Error: "30 days" is not a duration.\nDurations: ${DURATION_FORMS}.\n`)

    const date = await runInProcess(['sandbox', 'clock', 'set', '2091-02-29'], { env })
    expect(date).toMatchObject({ code: 2, stdout: '' })
    expect(date.stderr).toBe(
      'Error: "2091-02-29" is not a date or time.\nGive a date, 2027-01-01 (midnight UTC), or a date and time, 2027-01-01T09:30:00Z.\n',
    )

    const past = await runInProcess(['sandbox', 'clock', 'set', '2090-06-14', '--json'], { env })
    expect(past).toMatchObject({ code: 2, stdout: '' })
    expect(JSON.parse(past.stderr)).toEqual({
      error: {
        status: null,
        kind: 'usage',
        exit_code: 2,
        message: expect.stringMatching(
          /^2090-06-14T00:00:00\.000Z is before the sandbox's time, 2090-06-15T12:00:\d\d\.\d{3}Z: the clock only goes forward\.$/,
        ),
      },
    })
    // The same day again changes nothing and is no error.
    const same = await runInProcess(['sandbox', 'clock', 'set', '2090-06-15', '--json'], { env })
    expect(same.code).toBe(0)
    expect(JSON.parse(same.stdout)).toEqual({
      now: expect.stringMatching(/^2090-06-15T12:00:/),
      charges_created: 0,
    })

    const missing = await runInProcess(['sandbox', 'clock', 'advance'], { env })
    expect(missing.code).toBe(2)
    const after = JSON.parse(
      (await runInProcess(['sandbox', 'clock', '--json'], { env })).stdout,
    ).offset_seconds
    expect(Math.abs(after - before)).toBeLessThanOrEqual(1)
  })
})
