// `svc app dev` forwards the public `subscribe` feed to the backend (here the embedded one of a data
// dir) and passes each event on as it comes: the page gets a change while the stream is still open,
// never a buffered answer at its end (docs/realtime.md "Using feeds in apps").
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, startAppDev} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {openFeed, type RawTransport} from './public-helpers.js'

/** `svc app dev`, its URL without the trailing slash (the tests add paths that start with one). */
async function startDev(args: string[]) {
  const dev = await startAppDev(args)
  return {...dev, url: dev.url.replace(/\/+$/, '')}
}

describe('svc app dev proxies a live feed without buffering', {timeout: 180_000}, () => {
  const data = tempDir()
  const dir = join(tempDir(), 'live')
  let dev: Awaited<ReturnType<typeof startDev>> | undefined

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data])).code).toBe(0)
    const app = await svc(['app', 'create', '--template', 'svelte', '--name', 'Live', '--public', '--dir', dir, '--data', data])
    expect(app.code, app.stderr).toBe(0)
    const db = await svc(['db', 'create', 'Book', '--code', 'book', '--public-methods', '{"create":true,"subscribe":true}', '--data', data])
    expect(db.code, db.stderr).toBe(0)
    dev = await startDev([dir, '--port', '0', '--data', data])
  }, 150_000)
  afterAll(() => {
    dev?.child.kill('SIGTERM')
  })

  it('each change arrives through the dev server while the stream stays open', async () => {
    const t: RawTransport = {name: 'http', origin: dev!.url, fetch: (path, init) => fetch(dev!.url + path, init), close: async () => {}}
    const feed = await openFeed(t, '/svc/db/book/subscribe')
    expect(feed.status, JSON.stringify(feed.error)).toBe(200)
    expect(feed.headers.get('content-type')).toMatch(/^text\/event-stream/)
    // Written by another process on the same data dir: the dev server's embedded backend reads it from the journal.
    expect((await svc(['db', 'records', 'create', 'book', '{"n":1}', '--data', data])).code).toBe(0)
    await expect.poll(() => feed.events.length, {timeout: 30_000, interval: 100}).toBe(1)
    expect(feed.ended()).toBe(false)
    // And one written through the dev server itself (the page's own create).
    const r = await fetch(`${dev!.url}/svc/db/book/create`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"data":{"n":2}}'})
    expect(r.status).toBe(201)
    await expect.poll(() => feed.events.map((e) => e.data.data.n), {timeout: 30_000, interval: 100}).toEqual([1, 2])
    expect(feed.ended()).toBe(false)
    feed.close()
  })
})
