// The example members' list (examples/live-apps/apps/shared-list) in Chromium, both stores: a member
// signed in on the app's origin sees an item added in one tab appear in their other tab without a
// reload, ticks and removals too; another member's list and feed stay their own; someone not signed
// in is sent to sign in, and the db's public feed carries nothing for them.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import type {Page} from 'playwright-core'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {ROOT} from '../helpers/cli.js'
import {makeCall} from '../helpers/scenarios.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'
import {openFeed, rawTransport, type RawTransport} from './public-helpers.js'

chromiumNotice()

const EXAMPLE = join(ROOT, 'examples', 'live-apps')
const read = (path: string) => readFileSync(join(EXAMPLE, path), 'utf8')
const POLL = {timeout: 30_000, interval: 100}

describeWithChromium('the members\' live list in Chromium', {timeout: 180_000}, () => {
  let world: World
  let http: Transport
  let raw: RawTransport
  let alice: Awaited<ReturnType<typeof launchChromium>>
  let admin: Awaited<ReturnType<typeof launchChromium>>

  beforeAll(async () => {
    world = await createWorld()
    http = await overHttp(world.app)
    raw = await rawTransport('http', world.app)
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
    await raw?.close()
    await http?.close()
    await world?.close()
  })

  /** Signs in on the main origin (the login form takes a token) and lands on the app's origin. */
  const signIn = async (chrome: typeof alice, token: string) => {
    const page = await chrome.context.newPage()
    await page.goto(`${http.origin}/a/shared-list`)
    expect(new URL(page.url()).pathname).toBe('/svc/login')
    await page.fill('input[name=token]', token)
    await page.click('button[type=submit]')
    await page.getByTestId('status').getByText('live').waitFor({timeout: 30_000})
    return page
  }
  const openList = async (chrome: typeof alice) => {
    const page = await chrome.context.newPage()
    await page.goto(`${http.origin}/a/shared-list`)
    await page.getByTestId('status').getByText('live').waitFor({timeout: 30_000})
    return page
  }
  const items = (page: Page) => page.locator('[data-testid=items] li span').allTextContents()

  it('one member\'s tabs follow each other; another member\'s list is their own', async () => {
    const a1 = await signIn(alice, world.users.alice!.token)
    const a2 = await openList(alice)
    const b = await signIn(admin, world.users.admin!.token)
    await a1.getByLabel('New item').fill('milk')
    await a1.getByRole('button', {name: 'Add'}).click()
    await expect.poll(() => items(a2), POLL).toEqual(['milk'])
    await expect.poll(() => items(a1), POLL).toEqual(['milk'])
    await b.getByLabel('New item').fill('admin only')
    await b.getByRole('button', {name: 'Add'}).click()
    await expect.poll(() => items(b), POLL).toEqual(['admin only'])
    // A tick in the second tab shows in the first; a removal in the first leaves the second.
    await a2.getByLabel('Done: milk').check()
    await expect.poll(() => a1.getByLabel('Done: milk').isChecked(), POLL).toBe(true)
    await a1.getByRole('button', {name: 'Remove milk'}).click()
    await expect.poll(() => items(a2), POLL).toEqual([])
    expect(await items(b)).toEqual(['admin only'])
    for (const p of [a1, a2, b]) await p.close()
  })

  it('not signed in: sent to sign in, and the public feed carries nothing', async () => {
    const stranger = await launchChromium()
    try {
      const page = await stranger.context.newPage()
      await page.goto(`${http.origin}/a/shared-list`)
      expect(new URL(page.url()).pathname).toBe('/svc/login')
    } finally {
      await stranger.close()
    }
    const feed = await openFeed(raw, '/svc/db/shared_list/subscribe')
    expect(feed.status).toBe(200)
    // A member's private feed of the same db, as the witness that the hub handed the entries out.
    const witness = await openFeed(raw, '/svc/dbs/shared_list/changes', {authorization: `Bearer ${world.users.admin!.token}`})
    expect(witness.status).toBe(200)
    const call = makeCall(world, http)
    await call('POST', '/svc/dbs/shared_list/records.json', {body: {record: {data: {text: 'staff', owner: ''}}}})
    await call('POST', '/svc/dbs/shared_list/records.json', {body: {record: {data: {text: 'alice\'s', owner: String(world.users.alice!.id)}}}})
    // Someone not signed in cannot add: owner ({user_id}) is empty, and required.
    const anon = await raw.fetch('/svc/db/shared_list/create', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"data":{"text":"spam"}}'})
    expect(anon.status).toBe(422)
    await expect.poll(() => witness.events.length, POLL).toBe(2)
    expect(feed.events).toEqual([])
    feed.close()
    witness.close()
  })
})
