import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file in a child process of its own: the in-process CLI runs (test/helpers/cli.ts)
    // swap process-wide state (cwd, env, stdio), which worker threads could not do.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // With SVC_TEST_DATABASE_URL: the migrated template database each world is cloned from.
    globalSetup: ['test/helpers/pg-setup.ts'],
    // Two cores here: a few files at a time keeps CLI and browser tests from starving each other.
    maxWorkers: 2,
  },
})
