// The example shared list (examples/live-apps/apps/shared-list) in Chromium, both stores: two members,
// each in their own browser signed in on the app's origin, share one list — an item one adds appears
// on the other's page without a reload, a tick by the other shows on the first's, a removal too (the
// members' records API and private feed on the app origin: docs/security.md "Apps on their own
// origin"). Someone not signed in is sent to sign in, and neither the list nor the feed gives them
// anything, on the app's origin or through the main origin's public methods.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import type {Page} from 'playwright-core'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {ROOT} from '../helpers/cli.js'
import {makeCall} from '../helpers/scenarios.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'

chromiumNotice()

const EXAMPLE = join(ROOT, 'examples', 'live-apps')
const read = (path: string) => readFileSync(join(EXAMPLE, path), 'utf8')
const POLL = {timeout: 30_000, interval: 100}

describeWithChromium('the shared list in Chromium: every member sees the same items, live', {timeout: 180_000}, () => {
  let world: World
  let http: Transport
  let alice: Awaited<ReturnType<typeof launchChromium>>
  let admin: Awaited<ReturnType<typeof launchChromium>>
  let appOrigin = ''

  beforeAll(async () => {
    world = await createWorld()
    http = await overHttp(world.app)
    const call = makeCall(world, http)
    const db = await call('POST', '/svc/dbs.json', {body: {db: JSON.parse(read('dbs/shared_list.json'))}})
    expect(db.status, db.text).toBe(201)
    const app = await call('POST', '/svc/apps.json', {body: {app: {...JSON.parse(read('apps/shared-list/app.json')), source_code: read('apps/shared-list/App.svelte')}}})
    expect(app.status, app.text).toBe(201)
    alice = await launchChromium()
    admin = await launchChromium()
  }, 120_000)
  afterAll(async () => {
    await alice?.close()
    await admin?.close()
    await http?.close()
    await world?.close()
  })

  /** Signs in on the main origin (the login form takes a token) and lands on the app's origin, its feed open. */
  const signIn = async (chrome: typeof alice, token: string) => {
    const page = await chrome.context.newPage()
    await page.goto(`${http.origin}/a/shared-list`)
    expect(new URL(page.url()).pathname).toBe('/svc/login')
    await page.fill('input[name=token]', token)
    await page.click('button[type=submit]')
    await page.getByTestId('status').getByText('live').waitFor({timeout: 30_000})
    appOrigin = new URL(page.url()).origin
    expect(appOrigin).toMatch(/^http:\/\/shared-list\.localhost:\d+$/)
    return page
  }
  const items = (page: Page) => page.locator('[data-testid=items] li span').allTextContents()
  const add = async (page: Page, text: string) => {
    await page.getByLabel('New item').fill(text)
    await page.getByRole('button', {name: 'Add'}).click()
  }

  it('an item one member adds appears on the other\'s page without a reload; a tick and a removal too', async () => {
    const a = await signIn(alice, world.users.alice!.token)
    const b = await signIn(admin, world.users.admin!.token)
    await add(a, 'milk')
    await expect.poll(() => items(b), POLL).toEqual(['milk'])
    await add(b, 'bread')
    await expect.poll(() => items(a), POLL).toEqual(['milk', 'bread'])
    // Who added it, as the app wrote it.
    await expect.poll(() => a.locator('[data-testid=items] li small').allTextContents(), POLL).toEqual(['alice', 'admin'])
    await b.getByLabel('Done: milk').check()
    await expect.poll(() => a.getByLabel('Done: milk').isChecked(), POLL).toBe(true)
    await a.getByRole('button', {name: 'Remove bread'}).click()
    await expect.poll(() => items(b), POLL).toEqual(['milk'])
    // A member who opens the list later sees the same list (ticked), and it is the db's: the records API agrees.
    const later = await admin.context.newPage()
    await later.goto(`${http.origin}/a/shared-list`)
    await later.getByTestId('status').getByText('live').waitFor({timeout: 30_000})
    await expect.poll(() => items(later), POLL).toEqual(['milk'])
    expect(await later.getByLabel('Done: milk').isChecked()).toBe(true)
    const stored = await makeCall(world, http)('GET', '/svc/dbs/shared_list/records.json')
    expect(stored.json.map((r: {data: unknown}) => r.data)).toEqual([{text: 'milk', done: true, by: 'alice'}])
    // The writes are journaled as each member's, through the app origins' door.
    const history = await makeCall(world, http)('GET', '/svc/history.json?kind=record&db=shared_list&limit=5')
    expect(history.json.map((e: {op: string; door: string; actor: {name: string}}) => `${e.op} ${e.door} ${e.actor.name}`))
      .toEqual(['delete public alice', 'update public admin', 'create public admin', 'create public alice'])
    for (const p of [a, b, later]) await p.close()
  })

  it('not signed in: sent to sign in; the list and the feed give them nothing, on the app origin or the main one', async () => {
    const stranger = await launchChromium()
    try {
      const page = await stranger.context.newPage()
      await page.goto(`${http.origin}/a/shared-list`)
      expect(new URL(page.url()).pathname).toBe('/svc/login')
      // Straight to the app's origin: the page sends them to sign in; the records API and the feed answer 401.
      await page.goto(`${appOrigin}/`)
      expect(new URL(page.url()).pathname).toBe('/svc/login')
      for (const path of ['/svc/dbs/shared_list/records.json', '/svc/dbs/shared_list/changes']) {
        const res = await page.goto(`${appOrigin}${path}`)
        expect(res!.status(), path).toBe(401)
      }
    } finally {
      await stranger.close()
    }
    // The db has no public methods: the main origin's public list and feed do not exist for it.
    for (const method of ['list', 'subscribe', 'get']) {
      const res = await http.fetch(`/svc/db/shared_list/${method}`, {headers: {accept: 'text/event-stream'}})
      expect(res.status, method).toBe(404)
      expect(await res.text()).not.toContain('milk')
    }
  })
})
