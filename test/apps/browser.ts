import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {BrowserContext} from 'playwright-core'

/** Debian's Chromium, headless, with a fresh profile dir (never a downloaded browser). */
export async function launchChromium(): Promise<{context: BrowserContext; close(): Promise<void>}> {
  const {chromium} = await import('playwright-core')
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  })
  return {
    context,
    async close() {
      await context.close()
      rmSync(profile, {recursive: true, force: true})
    },
  }
}
