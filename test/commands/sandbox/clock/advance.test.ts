import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../../helpers/sandbox.js'

/**
 * `pay sandbox clock advance DURATION`. More in ../clock.test.ts (the local store: shown,
 * moved, set, refused, reset) and test/e2e/sandbox/clock.test.ts (a `pay sandbox start` process).
 */

const LOCAL_ENV = () => ({ PAY_SANDBOX_DIR: tempDir('pay-clock-local-'), PAY_SANDBOX_PORT: '1' })

describe('sandbox clock advance', () => {
  test('--jq shapes what it prints', async () => {
    const env = LOCAL_ENV()
    const result = await runInProcess(['sandbox', 'clock', 'advance', 'P1D', '--jq', '.charges_created'], {
      env,
    })
    expect(result).toMatchObject({ code: 0, stdout: '0\n', stderr: '' })
  })
})

describe('sandbox clock advance through a sandbox in this process', () => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox.close())

  test('moves the server’s clock by the duration and bills what falls due: a monthly subscription’s charges, each a payment link', async () => {
    const monthly = sandbox.sandbox.packages[sandbox.key].find((p) => p.frequency === 'monthly')!._id
    const sub = (
      await sandbox.request('POST', '/subscriptions', { package_id: monthly, email: 'a@example.com' })
    ).body.data
    const result = await runInProcess(['sandbox', 'clock', 'advance', '40d', '--json'], { env: sandbox.env })
    expect(result).toMatchObject({ code: 0, stderr: '' })
    const moved = JSON.parse(result.stdout)
    expect(moved).toEqual({ now: expect.any(String), charges_created: expect.any(Number) })
    expect(moved.charges_created).toBeGreaterThanOrEqual(1)
    expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(39 * 86_400_000)
    const clock = (await sandbox.request('GET', '/_sandbox/clock')).body.data
    expect(clock.offset_seconds).toBeGreaterThanOrEqual(40 * 86_400 - 1)
    const billed = (await sandbox.request('GET', `/subscriptions/${sub._id}`)).body.data.payment_links
    expect(billed).toHaveLength(moved.charges_created)
  })
})
