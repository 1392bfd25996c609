// Issue 30: real tutorial sources, pushed as a newcomer would (`svc app push` of the tutorial's
// folder, unchanged), open in Chromium and run: no page error, no console error, and the page
// changes over time or on input. The corpus is test/fixtures/tutorials/<name>/ (app.json + source,
// and the tutorial's images beside it: generated stand-ins with the tutorial's names and sizes).
import {cpSync} from 'node:fs'
import {join} from 'node:path'
import type {Page} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'tutorials')

/** A picture of the page (the canvas as shown — a WebGL canvas's own buffer may be cleared — or the DOM's text), to compare over time. */
const canvasPixels = async (page: Page) => (await page.locator('canvas').first().screenshot()).toString('base64')
const domText = (page: Page) => page.locator('body').innerText()

interface Tutorial {
  dir: string
  /** What the newcomer does with the page (nothing for a game that moves on its own). */
  act?: (page: Page) => Promise<void>
  picture: (page: Page) => Promise<string>
  /** Text the running page shows. */
  shows?: string
}

const TUTORIALS: Tutorial[] = [
  {dir: 'kaboom-pong', picture: canvasPixels, act: (p) => p.mouse.move(20, 200)},
  // Their images are files beside the source (assets/*.png, sprites/bean.png), sent by `svc app push`.
  {dir: 'kaboom-intro', picture: canvasPixels, act: (p) => p.keyboard.press('Space')},
  {dir: 'phaser-first-game', picture: canvasPixels, act: (p) => p.keyboard.down('ArrowRight')},
  {dir: 'mdn-breakout', picture: canvasPixels, act: (p) => p.keyboard.press('ArrowRight')},
  {dir: 'react-ts', picture: domText, shows: 'learn generics', act: (p) => p.getByRole('button').click()},
  {dir: 'vue-ts', picture: domText, shows: '1 remaining', act: (p) => p.getByRole('button', {name: 'Add Todo'}).click()},
  {dir: 'svelte-ts', picture: domText, shows: 'count is 0, doubled is 0', act: (p) => p.getByRole('button', {name: '+10'}).click()},
]

chromiumNotice()

describeWithChromium('tutorials a newcomer pastes run unchanged (svc app push, Chromium)', {timeout: 180_000}, () => {
  const data = tempDir()
  const work = tempDir()
  let server: ServeProcess | undefined
  let remote: string[] = []
  let chrome: Awaited<ReturnType<typeof launchChromium>>

  beforeAll(async () => {
    const ada = await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])
    server = await svcServe(data, [], {timeoutMs: 120_000})
    remote = ['--url', server.url, '--token', ada.json.token]
    chrome = await launchChromium()
  }, 300_000)
  afterAll(async () => {
    await chrome?.close()
    await server?.stop()
  })

  for (const tutorial of TUTORIALS) {
    it(`${tutorial.dir}: pushed from its folder, it runs in Chromium with no error and changes`, async () => {
      const folder = join(work, tutorial.dir)
      cpSync(join(CORPUS, tutorial.dir), folder, {recursive: true})
      const pushed = await svc(['app', 'push', folder, ...remote])
      expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0)

      const page = await chrome.context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()} ${m.location().url}`)
      })
      page.on('response', (r) => {
        if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`)
      })
      await page.goto(`${server!.url}/a/${tutorial.dir}`)
      if (tutorial.shows) await page.getByText(tutorial.shows).first().waitFor({timeout: 60_000})
      else await page.locator('canvas').first().waitFor({state: 'attached', timeout: 60_000})
      const before = await tutorial.picture(page)
      await tutorial.act?.(page)
      await expect.poll(() => tutorial.picture(page), {timeout: 60_000, message: `${tutorial.dir} never changed`}).not.toBe(before)
      expect(errors).toEqual([])
      await page.close()
    })
  }
})
