import { describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { dirWithLegacy, fixtureText, ownRecords } from '../../helpers/legacy-store.js'
import { KEY_A, storeText } from '../../helpers/sandbox.js'

/**
 * pay 0.1's store.json (test/fixtures/README.md) opened by several pay processes at once: one
 * of them imports it, and every one lists the same records. The import by one open, and what it
 * keeps: test/unit/sandbox/import.test.ts.
 */

describe('a store.json of pay 0.1', () => {
  it('is imported once when several processes open the directory at once', async () => {
    const dir = dirWithLegacy()
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        // pay 0.1 kept them under the well-known key, which is served when given by name.
        runCli(['-p', 'sandbox', 'links', 'list', '-q'], {
          env: { PAY_SANDBOX_DIR: dir, PAY_API_KEY: KEY_A },
        }),
      ),
    )
    const expected = ownRecords(KEY_A, 'payment_links')
      .reverse()
      .map((link) => `${link._id}\n`)
      .join('')
    for (const run of runs) {
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(expected)
    }
    expect(runs.filter((run) => run.stderr.includes('Imported 11 records from'))).toHaveLength(1)
    expect(storeText(dir)).toBe(fixtureText)
  })
})
