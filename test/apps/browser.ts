import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Browser} from 'playwright-core'

/** Debian's Chromium, headless, with a fresh profile (never a downloaded browser). */
export async function launchChromium(): Promise<{browser: Browser; close(): Promise<void>}> {
  const {chromium} = await import('playwright-core')
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'))
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
  })
  return {
    browser,
    async close() {
      await browser.close()
      rmSync(profile, {recursive: true, force: true})
    },
  }
}
