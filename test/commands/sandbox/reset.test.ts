import { describe, expect, test } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { createLocal, localLink } from '../../helpers/local-store.js'

/**
 * `pay sandbox pay` and `pay sandbox reset`: through the
 * sandbox server that answers at the profile's base URL, so that an app using that server sees
 * the change; on the local store ($PAY_SANDBOX_DIR) only when the built-in profile has no server
 * at its address; an error for any other base URL with no sandbox. The server here keeps its
 * store in another directory than the command's local one, so each test sees which was used;
 * the command's directory holds a copy of the server's secret (`trustSandbox`), with which the server
 * proves it is the user's own: without it, nothing goes through the server
 * (test/e2e/sandbox/squatter.test.ts).
 */

describe('pay sandbox reset', () => {
  test('with no server at the built-in profile’s address: the local store, said so', async () => {
    const localDir = tempDir('pay-local-store-')
    const local = await createLocal(localDir, runInProcess)
    const env = { PAY_SANDBOX_DIR: localDir, PAY_SANDBOX_PORT: '1' }
    const reset = await runInProcess(['sandbox', 'reset'], { env })
    expect(reset).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `The local sandbox store in ${localDir} is empty (no sandbox is running at http://127.0.0.1:1).\n`,
    })
    expect(localLink(localDir, local._id)).toBeUndefined()
    const json = await runInProcess(['sandbox', 'reset', '--json'], { env })
    expect(JSON.parse(json.stdout)).toEqual({ reset: true, dir: localDir, base_url: null, business_id: null })
  })

  test('another base URL without a sandbox: an error, the local store kept', async () => {
    const localDir = tempDir('pay-local-store-')
    const local = await createLocal(localDir, runInProcess)
    const refused = await runInProcess(['sandbox', 'reset', '--base-url', 'http://127.0.0.1:1'], {
      env: { PAY_SANDBOX_DIR: localDir, PAY_SANDBOX_PORT: '1' },
    })
    expect(refused).toMatchObject({ code: 6, stdout: '' })
    expect(refused.stderr).toBe(
      'Error: No pay sandbox answers at http://127.0.0.1:1 (profile "sandbox").\n' +
        '`pay sandbox reset` acts only on a sandbox: start one there with `pay sandbox start`, or use `-p sandbox` (without --base-url) for the local sandbox store.\n',
    )
    expect(localLink(localDir, local._id)).toBeDefined()
  })
})
