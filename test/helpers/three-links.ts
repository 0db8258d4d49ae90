import { expect } from 'vitest'
import { runInProcess } from './in-process.js'
import { type Json, seedHeldLink, seedLink } from './links.js'
import type { TestSandbox } from './sandbox.js'

/**
 * Three payment links seeded in a sandbox for the `links get` and `links list` tests of
 * test/commands/links/.
 */

/** The title of link c: 300 characters. */
export const LONG_TITLE = `Long ${'abcdefghij'.repeat(29)}tail!`

/**
 * Seeds three links, oldest first: a (unpaid, every optional field), b (paid with
 * `pay sandbox pay`, run in this process), c (unpaid, LONG_TITLE). Each as the sandbox holds it.
 */
export async function seedThreeLinks(sandbox: TestSandbox): Promise<{ a: Json; b: Json; c: Json }> {
  const a = await seedLink(sandbox, {
    email: 'ann@example.com',
    currency: 'EUR',
    amount: '10.00',
    title: 'Alpha',
    reference: 'REF-A',
    reference_2: 'R2-A',
    phone_no: '555-0100',
    description: 'First',
    redirect_url: 'https://shop.example/a',
  })
  let b = await seedLink(sandbox, {
    email: 'bob@example.com',
    currency: 'USD',
    amount: '20',
    title: 'Beta',
    reference: 'REF-B',
  })
  // The service takes titles of 50 characters at most; pay shows whatever a service holds.
  const c = await seedHeldLink(sandbox, {
    email: 'ANN@Example.com',
    currency: 'JPY',
    amount: 300,
    title: LONG_TITLE,
  })
  const paid = await runInProcess(['sandbox', 'pay', b._id, '-q'], {
    env: { PAY_SANDBOX_DIR: sandbox.dir },
  })
  expect(paid).toMatchObject({ code: 0, stdout: `${b._id}\n`, stderr: '' })
  b = (await sandbox.request('GET', `/payment-links/${b._id}`)).body.data
  expect(b.paid).toBe(true)
  return { a, b, c }
}
