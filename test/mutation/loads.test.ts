import { expect, it } from 'vitest'

/**
 * Run only by `npm run test:mutation` (vitest.mutation.config.ts). A mutant that keeps its module
 * from loading (a pattern Node cannot compile, a statement built from nothing) fails every test
 * file that imports the module before any of its tests runs, and StrykerJS's vitest runner counts
 * a file that failed to load as no test at all: the mutant would be reported as surviving. Here,
 * loading each mutated module is a test of its own, which such a mutant fails.
 */
it.each([
  ['src/api/reader.ts', () => import('../../src/api/reader.js')],
  ['src/render/table/width.ts', () => import('../../src/render/table/width.js')],
  ['src/bulk/report.ts', () => import('../../src/bulk/report.js')],
  ['src/sandbox/store/schedule.ts', () => import('../../src/sandbox/store/schedule.js')],
  ['src/sandbox/store/clock.ts', () => import('../../src/sandbox/store/clock.js')],
  ['src/sandbox/handlers/billing/billing.ts', () => import('../../src/sandbox/handlers/billing/billing.js')],
])('%s loads', async (_, load) => {
  expect(Object.keys(await load()).length).toBeGreaterThan(0)
})
