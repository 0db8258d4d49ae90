import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { VALID_LINK } from '../../../helpers/sandbox.js'

/** `pay sandbox snapshot restore NAME`: the sandbox's records back as they were saved. */

const linkFlags = Object.entries(VALID_LINK).flatMap(([key, value]) => [`--${key}`, value])

describe('sandbox snapshot restore', () => {
  test('the links made after the save are gone, those before kept; --json says which snapshot', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: '1' }
    const create = async () => {
      const made = await runInProcess(['-p', 'sandbox', 'links', 'create', ...linkFlags, '-q'], { env })
      expect(made.code).toBe(0)
      return made.stdout.trim()
    }
    const kept = await create()
    const saved = JSON.parse(
      (await runInProcess(['sandbox', 'snapshot', 'save', 'one', '--json'], { env })).stdout,
    )
    await create()
    const restored = await runInProcess(['sandbox', 'snapshot', 'restore', 'one', '--json'], { env })
    expect(restored).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(restored.stdout)).toEqual(saved)
    const listed = await runInProcess(['-p', 'sandbox', 'links', 'list', '-q'], { env })
    expect(listed).toMatchObject({ code: 0, stdout: `${kept}\n` })
  })

  test('no such snapshot: exit 5, as JSON with --json; nothing changed', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-') }
    const none = await runInProcess(['sandbox', 'snapshot', 'restore', 'zeta', '--json'], { env })
    expect(none).toMatchObject({ code: 5, stdout: '' })
    expect(JSON.parse(none.stderr)).toEqual({
      error: {
        status: null,
        kind: 'not_found',
        exit_code: 5,
        message: 'There is no snapshot "zeta".',
        hint: '`pay sandbox snapshot list` shows them.',
      },
    })
  })
})
