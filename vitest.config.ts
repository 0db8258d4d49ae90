import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'

/**
 * Four projects (CONTRIBUTING.md, Tests):
 *   unit      test/unit/<part>/, mirroring src/<part>/;
 *   commands  test/commands/<topic>/<verb>.test.ts, each command run in this process
 *             (test/helpers/in-process.ts), no build needed;
 *   e2e       test/e2e/, what needs a process of the built bin/run.js;
 *   load      test/load/, soak, kill -9 and crash rounds: only with `--mode all` (`npm test`, CI).
 * `npx vitest run` runs the first three; `npm run test:fast` the first two.
 */
const project = (name: string, overrides: TestProjectInlineConfiguration['test'] = {}) => ({
  extends: true,
  test: { name, include: [`test/${name}/**/*.test.ts`], ...overrides },
})

export default defineConfig(({ mode }) => ({
  test: {
    // No system keychain in the workers (test/helpers/no-keychain.ts).
    setupFiles: ['test/helpers/no-keychain.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    disableConsoleIntercept: true,
    projects: [
      project('unit'),
      project('commands'),
      project('e2e'),
      ...(mode === 'all' ? [project('load')] : []),
    ],
  },
}))
