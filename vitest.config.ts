import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // No system keychain in the workers (test/helpers/no-keychain.ts).
    setupFiles: ['test/helpers/no-keychain.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    disableConsoleIntercept: true,
  },
})
