import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The default output, then a notice below it when browser tests were skipped (test/helpers/browser.ts).
    reporters: ['default', './test/helpers/browser-reporter.ts'],
    // Each test file in a child process of its own: the in-process CLI runs (test/helpers/cli.ts)
    // swap process-wide state (cwd, env, stdio), which worker threads could not do.
    pool: 'forks',
    // Generous: a test taking 3 s here alone takes 30-60 s when 8 people share the 2 cores (load
    // 20-40). A timeout is no assertion (speed goals live in bench/); a hung test still fails.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // expect.poll without its own timeout (vitest's default: 1 s) waits this long: a condition a
    // Chromium page or a spawned server reaches in 100 ms here takes seconds under CI's load. A poll
    // ends as soon as its condition holds, so a generous bound costs nothing when it does.
    expect: {poll: {timeout: 30_000}},
    // With SVC_TEST_DATABASE_URL: the migrated template database each world is cloned from.
    globalSetup: ['test/helpers/pg-setup.ts'],
    // Two cores here: a few files at a time keeps CLI and browser tests from starving each other.
    maxWorkers: 2,
    // The in-process CLI runs read colour support once per file, at import: no colour there, as the
    // spawned binary gets none (cliEnv). Under CI=true colour libraries would otherwise turn it on.
    env: {NO_COLOR: '1'},
  },
})
