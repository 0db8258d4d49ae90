import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { WORKER_ENV } from './test/helpers/no-keychain.js'

/**
 * Four projects (CONTRIBUTING.md, Tests):
 *   unit      test/unit/<part>/, mirroring src/<part>/;
 *   commands  test/commands/<topic>/<verb>.test.ts, each command run in this process
 *             (test/helpers/in-process.ts), no build needed;
 *   e2e       test/e2e/, what needs a process of the built bin/run.js;
 *   load      test/load/, soak, kill -9 and crash rounds (minutes of CPU): with `--mode all`
 *             (`npm test`, `npm run test:load`, CI), or when a path under test/load/ is named.
 * `npx vitest run` runs the first three; `npm run test:fast` the first two (the edit loop).
 */
const project = (name: string, overrides: TestProjectInlineConfiguration['test'] = {}) => ({
  extends: true,
  test: { name, include: [`test/${name}/**/*.test.ts`], ...overrides },
})

export default defineConfig(({ mode }) => ({
  test: {
    // No system keychain in the workers (test/helpers/no-keychain.ts): each worker process starts
    // with this environment over the one vitest was started in; no test writes process.env.
    env: WORKER_ENV,
    // Hang detectors, not time goals: a leak scan runs dozens of processes in a row, and on a busy
    // two-core machine that can take well over 30 s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most e2e time is spent waiting on child processes, tmux, Chromium and timeouts, not CPU:
    // four workers on two cores halve the wall time (CONTRIBUTING.md, Test).
    maxWorkers: 4,
    disableConsoleIntercept: true,
    projects: [
      // One module graph per worker, not per file: src/ and oclif's Config are loaded once, not
      // once per test file (a third of the unit project's CPU, half the commands project's). A
      // test that mocks a module or needs it loaded afresh says so with vi.resetModules()
      // (keychain-helper). Each in-process run's state is its own (test/helpers/in-process.ts).
      project('unit', { isolate: false }),
      project('commands', { isolate: false }),
      project('e2e'),
      // After the others, alone: its rounds keep both cores busy, and an e2e test's process
      // starved behind them for 20 s was taken for a hang (CI, stop 43).
      ...(mode === 'all' || process.argv.some((arg) => arg.includes('test/load'))
        ? [project('load', { sequence: { groupOrder: 1 } })]
        : []),
    ],
  },
}))
