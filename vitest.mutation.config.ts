import { defineConfig } from 'vitest/config'
import { WORKER_ENV } from './test/helpers/no-keychain.js'

/**
 * The tests `npm run test:mutation` (stryker.config.mjs) runs against each mutant: the unit tests
 * of the mutated modules' own parts, and of those only the files that import a mutated module
 * (Stryker's `related`) and, per mutant, the tests that reached it. Each file runs in a fresh
 * module graph, so that a mutant of a module's top level (a regular expression, an SQL statement)
 * is loaded anew. Every other test reaches these modules only through them, and would make a run
 * of minutes one of hours on two cores. Not a project of vitest.config.ts: `npx vitest run` never
 * runs it.
 */
export default defineConfig({
  test: {
    include: [
      'test/mutation/*.test.ts',
      'test/unit/api/reader*.test.ts',
      'test/unit/work/subs/charges.test.ts',
      'test/unit/render/**/*.test.ts',
      'test/unit/bulk/**/*.test.ts',
      'test/unit/sandbox/billing/**/*.test.ts',
    ],
    env: WORKER_ENV,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    disableConsoleIntercept: true,
  },
})
