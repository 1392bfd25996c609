// `svc app dev` on the example shared list (examples/live-apps/apps/shared-list): the members' records
// routes and feed of the db its app.json declares go to the backend as the deployed app's origin
// answers them (docs/security.md "Apps on their own origin"), the feed passed on as it comes; another
// db's are not forwarded, and another site's request is refused before the developer's token is used.
import {cpSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, svc, startAppDev} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {openFeed, type RawTransport} from './public-helpers.js'

/** `svc app dev`, its URL without the trailing slash (the tests add paths that start with one). */
async function startDev(args: string[]) {
  const dev = await startAppDev(args)
  return {...dev, url: dev.url.replace(/\/+$/, '')}
}

describe('svc app dev forwards the members\' records routes and feed of the app\'s own db', {timeout: 180_000}, () => {
  const data = tempDir()
  const dir = join(tempDir(), 'shared-list')
  let dev: Awaited<ReturnType<typeof startDev>> | undefined

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data])).code).toBe(0)
    cpSync(join(ROOT, 'examples', 'live-apps', 'apps', 'shared-list'), dir, {recursive: true})
    for (const code of ['shared_list', 'secrets']) {
      const db = await svc(['db', 'create', code, '--code', code, '--data', data])
      expect(db.code, db.stderr).toBe(0)
    }
    expect((await svc(['db', 'records', 'create', 'secrets', '{"text":"not for the app"}', '--data', data])).code).toBe(0)
    dev = await startDev([dir, '--port', '0', '--data', data])
  }, 150_000)
  afterAll(() => {
    dev?.child.kill('SIGTERM')
  })

  it('lists, writes and follows the app\'s db through the dev server; nothing else', async () => {
    const t: RawTransport = {name: 'http', origin: dev!.url, fetch: (path, init) => fetch(dev!.url + path, init), close: async () => {}}
    const feed = await openFeed(t, '/svc/dbs/shared_list/changes')
    expect(feed.status, JSON.stringify(feed.error)).toBe(200)
    const made = await fetch(`${dev!.url}/svc/dbs/shared_list/records.json`, {method: 'POST', headers: {'content-type': 'application/json'},
      body: JSON.stringify({record: {data: {text: 'milk', done: false}}})})
    expect(made.status).toBe(201)
    const id = (await made.json()).id
    const ticked = await fetch(`${dev!.url}/svc/dbs/shared_list/records/${id}.json`, {method: 'PATCH', headers: {'content-type': 'application/json'},
      body: JSON.stringify({record: {data: {done: true}}})})
    expect(ticked.status).toBe(200)
    await expect.poll(() => feed.events.map((e) => e.event), {timeout: 30_000, interval: 100}).toEqual(['create', 'update'])
    expect(feed.events[1]!.data.data).toEqual({text: 'milk', done: true})
    expect(feed.ended()).toBe(false)
    feed.close()
    const list = await fetch(`${dev!.url}/svc/dbs/shared_list/records.json`)
    expect((await list.json()).map((r: {data: unknown}) => r.data)).toEqual([{text: 'milk', done: true}])
    // Another db (by code), the db itself, and the db list are not forwarded: the developer's token never reads them.
    for (const path of ['/svc/dbs/secrets/records.json', '/svc/dbs/shared_list.json', '/svc/dbs.json', '/svc/dbs/shared_list/import.json']) {
      const r = await fetch(`${dev!.url}${path}`)
      expect(await r.text(), path).not.toContain('not for the app')
      expect(r.headers.get('content-type') ?? '', path).not.toMatch(/json/)
    }
    // Another site's page: refused before the backend is asked.
    const cross = await fetch(`${dev!.url}/svc/dbs/shared_list/records.json`, {headers: {'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors'}})
    expect(cross.status).toBe(403)
  })
})
