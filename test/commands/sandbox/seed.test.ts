import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { OBJECT_ID, startTestSandbox } from '../../helpers/sandbox.js'
import { fixtureFile, fixtures, LINK, localRecords, NAMES, rows } from '../../helpers/seed-fixtures.js'

/**
 * `pay sandbox seed FILE [--once]` on the local store, in process: each name
 * with its id, exit 3 naming the entry and field for an invalid file (nothing kept), exit 2 for a
 * file that is not JSON. Through a running sandbox and `pay sandbox start --seed`:
 * test/e2e/sandbox/seed.test.ts; the store-level rules: test/unit/sandbox/double/fixtures.test.ts.
 */

describe('pay sandbox seed', () => {
  test('on the local store: each name with its id, --json {NAME: ID}, --once skips and says so', async () => {
    const dir = tempDir('pay-local-store-')
    const env = { PAY_SANDBOX_DIR: dir }
    const file = fixtureFile(fixtures())
    const seeded = await runInProcess(['sandbox', 'seed', file], { env })
    expect(seeded.code).toBe(0)
    expect(seeded.stderr).toBe(`4 records seeded (the local sandbox store ${dir}).\n`)
    const ids: Record<string, string> = Object.fromEntries(
      seeded.stdout
        .trim()
        .split('\n')
        .map((line) => [line.split('\t')[0], line.split('\t')[2]]),
    )
    expect(seeded.stdout).toBe(rows(ids))
    const records = localRecords(dir)
    expect(records.payment_links[ids['inv-42']]).toMatchObject({ ...LINK, amount: 25.5, paid: true })
    expect(records.payment_links[ids['inv-43']]).toMatchObject({ paid: false, amount: 10 })
    expect(records.subscriptions[ids['ada-monthly']]).toMatchObject({ status: 'cancel' })
    expect(Object.keys(records.tokenizations)).toHaveLength(1)

    const once = await runInProcess(['sandbox', 'seed', file, '--once', '--json'], { env })
    expect(once.code).toBe(0)
    expect(JSON.parse(once.stdout)).toEqual(ids)
    expect(Object.keys(JSON.parse(once.stdout))).toEqual(NAMES)
    expect(Object.keys(localRecords(dir).payment_links)).toHaveLength(2)

    const onceText = await runInProcess(['sandbox', 'seed', file, '--once'], { env })
    expect(onceText.stdout).toBe(rows(ids, () => 'skipped'))
    expect(onceText.stderr).toBe(
      `0 records seeded, 4 skipped (seeded before) (the local sandbox store ${dir}).\n`,
    )

    // From stdin, without --once: made again.
    const again = await runInProcess(['sandbox', 'seed', '-', '--jq', '."inv-42"'], {
      env,
      input: JSON.stringify(fixtures()),
    })
    expect(again.code).toBe(0)
    // --jq prints a string as it is, as jq -r does.
    expect(again.stdout).toMatch(/^[0-9a-f]{24}\n$/)
    const newId = again.stdout.trim()
    expect(newId).toMatch(OBJECT_ID)
    expect(newId).not.toBe(ids['inv-42'])
    expect(Object.keys(localRecords(dir).payment_links)).toHaveLength(4)
  })

  test('an invalid entry: exit 3 naming links[2] and the field, nothing kept; not JSON: exit 2', async () => {
    const dir = tempDir('pay-local-store-')
    const env = { PAY_SANDBOX_DIR: dir }
    const file = fixtureFile({
      links: [
        { name: 'a', ...LINK },
        { name: 'b', ...LINK },
        { name: 'c', ...LINK, amount: 'lots' },
      ],
    })
    const invalid = await runInProcess(['sandbox', 'seed', file], { env })
    expect(invalid).toMatchObject({ code: 3, stdout: '' })
    expect(invalid.stderr).toBe(
      `Error: The fixtures in ${file} are invalid: nothing was seeded.\n  links[2].amount  The amount must be a number.\n`,
    )
    const json = await runInProcess(['sandbox', 'seed', file, '--json'], { env })
    expect(json.code).toBe(3)
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { errors: { 'links[2].amount': ['The amount must be a number.'] } },
    })
    expect(localRecords(dir)?.payment_links ?? {}).toEqual({})

    const notJson = await runInProcess(['sandbox', 'seed', fixtureFile('links:\n  - name: a\n')], { env })
    expect(notJson.code).toBe(2)
    expect(notJson.stdout).toBe('')
    expect(notJson.stderr).toMatch(/^Error: .*fixtures\.json is not a fixture file\. It is not JSON: /)
    expect(notJson.stderr).toMatch(
      /\nA fixture file is JSON: \{"tokenizations": \[\.\.\.\], "links": \[\.\.\.\], "subscriptions": \[\.\.\.\]\}\.\n$/,
    )
    const missing = await runInProcess(['sandbox', 'seed', path.join(dir, 'nope.json')], { env })
    expect(missing).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: Cannot read the fixture file ${path.join(dir, 'nope.json')}: no such file.\n`,
    })
  })
})

describe('a file that is not a fixture, and hostile fixtures', () => {
  const FORMAT = '{"tokenizations": [...], "links": [...], "subscriptions": [...]}'
  /** Each file, and the one error it gets (exit 3) through a running sandbox and on the local store alike. */
  const CASES: [string, string, string][] = [
    ['an array', '[]', `  fixtures  A fixture file is a JSON object: ${FORMAT}.`],
    ['a string', '"links"', `  fixtures  A fixture file is a JSON object: ${FORMAT}.`],
    ['null', 'null', `  fixtures  A fixture file is a JSON object: ${FORMAT}.`],
    [
      'a "__proto__" field in an entry',
      JSON.stringify({ links: [{ name: 'x', ...LINK }] }).replace(
        '{"name"',
        '{"__proto__":{"paid":true},"name"',
      ),
      '  links[0].__proto__  The __proto__ field is not a field of a payment link (email, currency, amount, title, phone_no, description, redirect_url, reference, reference_2, send_email, paid, and name).',
    ],
    [
      'a "__proto__" section',
      '{"__proto__": [{"name": "x"}], "links": []}',
      '  __proto__  The __proto__ section is unknown: a fixture file has tokenizations, links, subscriptions and account.',
    ],
    [
      'a 200,000-deep file',
      `{"links": [{"name": "deep", "title": ${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`,
      '  fixtures  A fixture file is nested at most 64 levels deep: this one is deeper.',
    ],
  ]

  test.each(CASES)(
    '%s: exit 3, one message, through a server and without one; nothing kept',
    async (_, text, line) => {
      const file = path.join(tempDir('pay-hostile-'), 'fixtures.json')
      fs.writeFileSync(file, text)
      const expected = `Error: The fixtures in ${file} are invalid: nothing was seeded.\n${line}\n`
      const sandbox = await startTestSandbox()
      try {
        const local = tempDir('pay-hostile-local-')
        const [served, alone] = await Promise.all([
          runInProcess(['sandbox', 'seed', file], { env: sandbox.env }),
          runInProcess(['sandbox', 'seed', file], { env: { PAY_SANDBOX_DIR: local, PAY_SANDBOX_PORT: '1' } }),
        ])
        expect(served).toMatchObject({ code: 3, stdout: '', stderr: expected })
        expect(alone).toMatchObject({ code: 3, stdout: '', stderr: expected })
        expect((await sandbox.request('GET', '/payment-links')).body.data.total).toBe(0)
        // Nothing in the local store: no record, no business even.
        expect(fs.existsSync(path.join(local, 'store.db')) ? localRecords(local) : undefined).toBeUndefined()
      } finally {
        await sandbox.close()
      }
    },
  )
})
