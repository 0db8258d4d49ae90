// @ts-check
/**
 * `npm run test:mutation` (CONTRIBUTING.md, Mutation testing): StrykerJS mutates the modules
 * below and runs, for each mutant, the unit tests that reached it (vitest.mutation.config.ts). A
 * mutant no test notices is a change of behaviour the tests would let through. Not run by
 * `npm test` or CI: it takes minutes.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  mutate: [
    'src/api/reader.ts',
    'src/render/table/width.ts',
    'src/bulk/report.ts',
    'src/sandbox/store/schedule.ts',
    'src/sandbox/store/clock.ts',
    'src/sandbox/handlers/billing/billing.ts',
  ],
  coverageAnalysis: 'perTest',
  // The machine is shared: one test process, unless `--concurrency N` says otherwise.
  concurrency: 1,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowEmojis: false, logTests: false },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'test/e2e', 'test/load', 'test/bench', 'reports'],
}
