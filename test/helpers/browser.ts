// Every browser test launches Chromium through here (docs/architecture.md "Tests"):
// - Debian's Chromium at /usr/bin/chromium (CHROMIUM_PATH overrides it), never a downloaded browser.
// - Missing locally: the browser tests are skipped LOUDLY — a skipped test named after the fix
//   and a warning in the output — so `npm test` passes on a fresh machine.
// - Missing under CI=true: the browser tests run and fail ("required under CI").
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createRequire} from 'node:module'
import type {Browser, BrowserContext, Locator, Page} from 'playwright-core'
import {afterAll, describe, it} from 'vitest'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const INSTALL = 'apt-get install -y chromium'
/** CI=true (or 1): browser tests are required, never skipped. */
export const chromiumRequired = ['true', '1'].includes((process.env.CI ?? '').toLowerCase())
export const chromiumFound = existsSync(CHROMIUM_PATH)
/** Whether this run drives a browser: Chromium is there, or CI requires it (then a missing one fails). */
export const withChromium = chromiumFound || chromiumRequired

export const SKIP_NOTICE = `SKIPPED: Chromium not found at ${CHROMIUM_PATH} — ${INSTALL} (required under CI=true)`

/** `it` for a test that drives Chromium: skipped when the browser is missing locally (add chromiumNotice()). */
export const itWithChromium = it.runIf(withChromium)
/** `describe` for tests that all drive Chromium: skipped when the browser is missing locally (add chromiumNotice()). */
export const describeWithChromium = describe.runIf(withChromium)

let noticed = false
/**
 * Makes a local skip visible: one skipped test named after the fix (in the list of tests) and a
 * warning (in the output). Does nothing when the browser tests run. Call once per file, at the top
 * level or inside the describe whose tests need the browser.
 */
export function chromiumNotice(): void {
  if (withChromium) return
  it.skip(SKIP_NOTICE, () => {})
  if (noticed) return
  noticed = true
  console.warn(`\n!!! ${SKIP_NOTICE}\n!!! Browser tests in this file are skipped; CI runs them.\n`)
}

/** One Chromium per test file and cookie policy (below): launched at the first call, closed after the file. */
const shared = new Map<boolean, Promise<{browser: Browser; close(): Promise<void>}>>()
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']

/** Launches Debian's Chromium on a fresh profile whose preferences allow third-party cookies or block them. */
async function launchShared(blocked: boolean): Promise<{browser: Browser; close(): Promise<void>}> {
  const {chromium} = await import('playwright-core')
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'))
  // Desktop Chrome's default keeps third-party cookies; headless Chromium refuses them, and an app
  // tile (a frame of the app's own origin) needs its sign-in cookie there (scripts/screenshots.js too).
  // `thirdPartyCookies: false` blocks them, as a browser set to (or a future Chrome by default).
  // The browser contexts of launchChromium() read this setting from the profile they are made in.
  mkdirSync(join(profile, 'Default'), {recursive: true})
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({profile: {cookie_controls_mode: blocked ? 1 : 0, block_third_party_cookies: blocked}}))
  const persistent = await chromium.launchPersistentContext(profile, {executablePath: CHROMIUM_PATH, headless: true, args: ARGS}).catch((error: unknown) => {
    rmSync(profile, {recursive: true, force: true})
    throw error
  })
  // Playwright (1.65) gives a persistent context's Browser: its newContext() is what each test gets.
  const browser = persistent.browser()
  if (!browser) {
    await persistent.close()
    rmSync(profile, {recursive: true, force: true})
    throw new Error('playwright-core gave no Browser for the persistent context: launchChromium() needs one to make contexts')
  }
  return {
    browser,
    async close() {
      await persistent.close()
      rmSync(profile, {recursive: true, force: true})
    },
  }
}

/** Closes the file's shared Chromium processes (an afterAll of every file that imports this module). */
export async function closeSharedChromium(): Promise<void> {
  const all = [...shared.values()]
  shared.clear()
  await Promise.all(all.map(async (launched) => (await launched.catch(() => undefined))?.close()))
}

// In a test file (not in the reporter, which imports SKIP_NOTICE): the shared browsers end with the file.
if (process.env.VITEST_WORKER_ID !== undefined) {
  try {
    afterAll(closeSharedChromium)
  } catch {
    // Imported outside a file's collection: the browsers are killed with the process.
  }
}

/**
 * A fresh browser context of Debian's Chromium, headless (never a downloaded browser): its own
 * cookies, storage, cache and service workers, as a new profile, seen by no other call's context.
 * The Chromium process behind it is launched once per test file (and per `thirdPartyCookies`) and
 * shared: a launch costs 3-5 s of a loaded machine (2-core, load 20-30), a context 0.3-0.5 s.
 * `close()` closes the context (its pages); the process is closed after the file.
 */
export async function launchChromium(options: {bypassCSP?: boolean; thirdPartyCookies?: boolean} = {}): Promise<{context: BrowserContext; close(): Promise<void>}> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: ${INSTALL}${chromiumRequired ? ' (browser tests are required under CI=true)' : ''}`)
  }
  const blocked = options.thirdPartyCookies === false
  let launched = shared.get(blocked)
  if (!launched) {
    launched = launchShared(blocked)
    shared.set(blocked, launched)
    // A failed launch is not kept: the next call tries again (and says why).
    launched.catch(() => shared.get(blocked) === launched && shared.delete(blocked))
  }
  const {browser, close} = await launched
  if (!browser.isConnected()) {
    // The shared browser died (a crash): this test and the next ones get a new one.
    if (shared.get(blocked) === launched) shared.delete(blocked)
    await close().catch(() => undefined)
    return launchChromium(options)
  }
  const context = await browser.newContext({bypassCSP: options.bypassCSP})
  return {
    context,
    async close() {
      await context.close()
    },
  }
}

/**
 * Signs in through the console's login form at `origin` with `token`. Sign-in attempts are limited per
 * client address (10 at once, 10 a minute: src/http/routes/login.ts), and a file of browser tests
 * signs in more often than that on a fast machine: a refusal is waited out as it says, then retried.
 */
export async function signInThroughForm(page: import('playwright-core').Page, origin: string, token: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await page.goto(`${origin}/`)
    await page.fill('#token', token)
    await page.click('button[type=submit]')
    // The console (signed in), the form again with its error, or the 429's JSON as the browser shows it.
    const outcome = page.locator('[data-testid=who], p.err, body > pre').first()
    await outcome.waitFor({state: 'attached'})
    if ((await outcome.getAttribute('data-testid')) === 'who') return
    const said = (await page.locator('body').textContent()) ?? ''
    const wait = /too many sign-in attempts; retry in (\d+) s/.exec(said)
    if (!wait || attempt >= 10) throw new Error(`sign-in refused: ${said}`)
    await new Promise((resolve) => setTimeout(resolve, (Number(wait[1]) + 1) * 1000))
  }
}

/** axe-core (WCAG 2 A/AA rules and best practices) on the page as it is: its serious and critical violations, one line each, `where` first. */
export async function axeScan(page: Page, where: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({path: createRequire(import.meta.url).resolve('axe-core/axe.min.js')})
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as {axe: {run(context: Document, options: object): Promise<{violations: Array<{id: string; impact: string; nodes: Array<{target: string[]}>}>}>}}).axe
    const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})
    return result.violations.map((v) => ({id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3)}))
  })
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${where}: ${v.id} (${v.impact}) at ${v.targets.join(', ')}`)
}

/** The text of a code editor (CodeMirror: one `.cm-line` per line), from its textbox. */
export const codeOf = (editor: Locator) => editor.evaluate((el) => [...el.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n'))
