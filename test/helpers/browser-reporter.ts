// A vitest reporter (after the default one): when a run skipped browser tests because Chromium is
// missing (test/helpers/browser.ts), says so again below the summary, where it cannot be missed.
import type {Reporter, TestModule} from 'vitest/node'
import {SKIP_NOTICE} from './browser.js'

export default class BrowserSkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped = modules.filter((m) => [...m.children.allTests()].some((t) => t.name === SKIP_NOTICE))
    if (skipped.length === 0) return
    process.stderr.write(`\n!!! ${SKIP_NOTICE}\n!!! Browser tests skipped in ${skipped.map((m) => m.relativeModuleId).join(', ')}; CI runs them.\n\n`)
  }
}
