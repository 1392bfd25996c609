import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {PACKAGE_TEMPLATES} from '../../src/paths.js'
import {makeCall} from '../helpers/scenarios.js'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'

const template = (engine: string, file: string) => readFileSync(join(PACKAGE_TEMPLATES, engine, file), 'utf8')

chromiumNotice()

describeWithChromium('served apps in a real browser (Chromium)', {timeout: 90_000}, () => {
  let world: World
  let http: Transport
  let chrome: Awaited<ReturnType<typeof launchChromium>>

  beforeAll(async () => {
    world = await createWorld()
    http = await overHttp(world.app)
    chrome = await launchChromium()
  })
  afterAll(async () => {
    await chrome?.close()
    await http?.close()
    await world?.close()
  })

  for (const [engine, file, css] of [['svelte', 'App.svelte', 'tailwind'], ['vue', 'App.vue', 'tailwind_all'], ['react', 'App.jsx', 'none'],
    ['js', 'app.js', 'none'], ['html', 'index.html', 'none']]) {
    it(`${engine}: the page renders, a click changes the state, the context names the visitor`, async () => {
      const call = makeCall(world, http)
      const created = await call('POST', '/svc/apps.json', {body: {app: {name: `${engine} app`, app_engine: engine, css_engine: css,
        source_code: template(engine, file), public: true}}})
      expect(created.status, created.text).toBe(201)
      const page = await chrome.context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      const external: string[] = []
      // The app's own origin (`<code>.localhost` on the server's port) is the server too.
      const port = new URL(http.origin).port
      page.on('request', (r) => {
        const url = new URL(r.url())
        if (!r.url().startsWith(http.origin) && !(url.hostname.endsWith('.localhost') && url.port === port)) external.push(r.url())
      })
      await page.goto(`${http.origin}/a/${created.json.url_code}`)
      await page.getByText('Hello visitor').waitFor({timeout: 60_000})
      await page.getByRole('button', {name: 'Clicked 0 times'}).click()
      await page.getByRole('button', {name: 'Clicked 1 times'}).waitFor({timeout: 30_000})
      if (engine !== 'js' && engine !== 'html') {
        await page.getByText('Doubled: 2').waitFor({timeout: 30_000})
        // `p-6` on <main>: server-compiled (tailwind) or generated offline in the page (tailwind_all); nothing with none.
        const padding = () => page.locator('main').evaluate((el) => getComputedStyle(el).paddingTop)
        await expect.poll(padding, {timeout: 30_000, message: css}).toBe(css === 'none' ? '0px' : '24px')
      }
      expect(errors).toEqual([])
      expect(external).toEqual([])
      await page.close()
    })
  }

  for (const engine of ['kaboom', 'phaser']) {
    it(`${engine}: the game module loads the engine served by the server and draws a canvas`, async () => {
      const call = makeCall(world, http)
      const created = await call('POST', '/svc/apps.json', {body: {app: {name: `${engine} game`, app_engine: engine, css_engine: 'none',
        source_code: template(engine, 'game.js'), public: true}}})
      expect(created.status, created.text).toBe(201)
      const page = await chrome.context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      const libs: string[] = []
      page.on('response', (r) => {
        if (r.url().includes('/_svc/lib/')) libs.push(`${r.status()} ${new URL(r.url()).pathname}`)
      })
      await page.goto(`${http.origin}/a/${created.json.id}`)
      await page.locator('canvas').first().waitFor({state: 'attached', timeout: 60_000})
      expect(errors).toEqual([])
      expect(libs).toEqual([`200 /_svc/lib/${engine === 'phaser' ? 'phaser.esm.min.js' : 'kaplay.mjs'}`])
      await page.close()
    })
  }

  it('a private app: the login page takes a token, sets the session, and the app sees the user', async () => {
    const call = makeCall(world, http)
    const created = await call('POST', '/svc/apps.json', {body: {app: {name: 'Private', app_engine: 'svelte', css_engine: 'tailwind_all',
      source_code: template('svelte', 'App.svelte')}}})
    const context = chrome.context
    await context.clearCookies()
    const page = await context.newPage()
    await page.goto(`${http.origin}/a/${created.json.url_code}`)
    expect(new URL(page.url()).pathname).toBe('/svc/login')
    await page.fill('input[name=token]', world.users.alice!.token)
    await page.click('button[type=submit]')
    await page.getByText('Hello alice').waitFor({timeout: 60_000})
    // Handed over to the app's own origin, signed in there with a cookie of that origin only.
    expect(new URL(page.url()).host).toBe(`${created.json.url_code}.localhost:${new URL(http.origin).port}`)
    expect(new URL(page.url()).pathname).toBe('/')
    const cookies = await context.cookies()
    expect(cookies.find((c) => c.name === 'svc_session')?.httpOnly).toBe(true)
    expect(cookies.find((c) => c.name === 'svc_session')?.domain).toBe('127.0.0.1')
    expect(cookies.find((c) => c.name === 'svc_app_session')).toMatchObject({httpOnly: true, domain: `${created.json.url_code}.localhost`})
    await page.close()
  })
})
