// Issue 30: an app brings its images, sounds, fonts and data as assets, served from the app's own
// origin at the path the app loads them by (`assets/sky.png`), within per-file, per-app and count
// quotas; another account's app is a 404; a private app's assets need the app origin's sign-in.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openApp} from '../helpers/app-origin.js'
import {makeCall, type Ctx} from '../helpers/scenarios.js'
import {createWorld, openTransport, TRANSPORTS} from '../helpers/world.js'

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
const b64 = (b: Buffer) => b.toString('base64')

for (const name of TRANSPORTS) {
  describe(`app assets [${name}]`, {timeout: 60_000}, () => {
    let ctx: Ctx
    let close: () => Promise<void>
    let appId = ''
    beforeAll(async () => {
      const world = await createWorld(undefined, {quotas: {app_asset_bytes: 1000, app_assets_bytes: 1500, app_assets_count: 3}})
      const transport = await openTransport(name, world.app)
      ctx = {world, transport, call: makeCall(world, transport)}
      close = async () => {
        await transport.close()
        await world.close()
      }
      const created = await ctx.call('POST', '/svc/apps.json', {body: {app: {name: 'Game', url_code: 'game', app_engine: 'html', css_engine: 'none',
        source_code: '<img src="assets/sky.png">', public: true}}})
      expect(created.status, created.text).toBe(201)
      appId = created.json.id
    })
    afterAll(async () => close?.())

    const put = (path: string, data: Buffer | string, as?: string, id = appId) =>
      ctx.call('PUT', `/svc/apps/${id}/assets.json`, {as, body: {asset: {path, data_base64: typeof data === 'string' ? data : b64(data)}}})

    it('stores an asset and serves it on the app origin at its path, with its type and an ETag', async () => {
      const r = await put('assets/sky.png', PNG)
      expect(r.status, r.text).toBe(200)
      expect(r.json).toMatchObject({path: 'assets/sky.png', content_type: 'image/png', size: PNG.length})
      expect((await ctx.call('GET', `/svc/apps/${appId}/assets.json`)).json.map((a: {path: string}) => a.path)).toEqual(['assets/sky.png'])
      const page = await openApp(ctx.transport, '/a/game')
      const asset = await ctx.transport.fetch(new URL('/assets/sky.png', page.url).href)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('content-type')).toBe('image/png')
      expect(Buffer.from(await asset.arrayBuffer())).toEqual(PNG)
      const again = await ctx.transport.fetch(new URL('/assets/sky.png', page.url).href, {headers: {'if-none-match': asset.headers.get('etag')!}})
      expect(again.status).toBe(304)
      expect((await ctx.transport.fetch(new URL('/assets/none.png', page.url).href)).status).toBe(404)
    })

    it('refuses a path the origin cannot serve, a type that is not an asset, bad base64, and files over the quotas (422, nothing stored)', async () => {
      for (const path of ['../x.png', '/abs.png', 'a/./b.png', '.hidden.png', 'svc/x.png', '_svc/lib/x.png', 'a\\b.png', 'x.js', 'x.html', 'noext', 'a'.repeat(201) + '.png']) {
        const r = await put(path, PNG)
        expect(r.status, path).toBe(422)
        expect(r.json.path, path).toBeDefined()
      }
      expect((await put('bad.png', 'not base64!')).json.data_base64).toEqual(['is not valid base64'])
      const big = await put('big.png', Buffer.alloc(1001))
      expect(big.status).toBe(422)
      // Exact sizes: rounded, one byte over a cap read as the cap itself.
      expect(big.json.data_base64).toEqual(['is 1,001 bytes; an asset may be at most 1,000 bytes (app_asset_bytes)'])
      expect((await put('a.png', Buffer.alloc(1000))).status).toBe(200)
      const total = await put('b.png', Buffer.alloc(1000))
      expect(total.status).toBe(422)
      expect(total.json.data_base64[0]).toMatch(/app_assets_count, app_assets_bytes/)
      // Replacing a file counts its new size only; the count holds too.
      expect((await put('a.png', Buffer.alloc(900))).status).toBe(200)
      expect((await put('c.png', PNG)).status).toBe(200)
      expect((await put('d.png', PNG)).json.data_base64[0]).toMatch(/at most 3 files/)
      expect((await ctx.call('DELETE', `/svc/apps/${appId}/assets.json?path=c.png`)).status).toBe(204)
      expect((await ctx.call('GET', `/svc/apps/${appId}/assets.json`)).json.map((a: {path: string}) => a.path)).toEqual(['a.png', 'assets/sky.png'])
    })

    it('another account cannot list, write or delete the assets (404); delete removes the file', async () => {
      expect((await ctx.call('GET', `/svc/apps/${appId}/assets.json`, {as: 'mallory'})).status).toBe(404)
      expect((await put('evil.png', PNG, 'mallory')).status).toBe(404)
      expect((await ctx.call('DELETE', `/svc/apps/${appId}/assets.json?path=a.png`, {as: 'mallory'})).status).toBe(404)
      expect((await ctx.call('DELETE', `/svc/apps/${appId}/assets.json?path=a.png`)).status).toBe(204)
      expect((await ctx.call('DELETE', `/svc/apps/${appId}/assets.json?path=a.png`)).status).toBe(404)
    })

    it('a private app\'s assets need the app origin\'s sign-in', async () => {
      const created = await ctx.call('POST', '/svc/apps.json', {body: {app: {name: 'Secret', url_code: 'secret', app_engine: 'html', css_engine: 'none',
        source_code: '<p>x</p>'}}})
      expect((await put('s.png', PNG, undefined, created.json.id)).status).toBe(200)
      const host = new URL(ctx.transport.origin)
      const url = `http://secret.localhost:${host.port || 80}/s.png`
      expect((await ctx.transport.fetch(url)).status).toBe(404)
      const signedIn = await openApp(ctx.transport, '/a/secret', {authorization: `Bearer ${ctx.world.users.admin!.token}`})
      expect((await ctx.transport.fetch(new URL('/s.png', signedIn.url).href, {headers: {cookie: signedIn.cookie}})).status).toBe(200)
    })
  })
}
