// Issue 24 M7: app builds had no size cap, and the app list read every build (three 12 MB builds made
// a guest's `GET /svc/apps.json` take 1.25 s and doubled the server's memory). A build over
// app_build_bytes is now a 422 under source_code and is stored nowhere; the list selects no build.
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {buildHash} from '../../src/compile/index.js'
import {makeCall, type Ctx} from '../helpers/scenarios.js'
import {createWorld, openTransport, TRANSPORTS} from '../helpers/world.js'

// Compiles are slow on a busy 2-core machine.
vi.setConfig({testTimeout: 120_000})

const SEED = {accounts: ['acme'], users: [{login: 'admin', role: 'admin' as const}, {login: 'gus', role: 'guest' as const}]}
/** Compiles to ~220 KB (React and an inline source map): over the 100,000-byte cap of these worlds. */
const REACT = 'export default function App() { return <p className="p-4">hi</p> }\n'
const LIST_KEYS = [
  'actions', 'active', 'app_build_time', 'app_engine', 'config', 'created_at', 'created_by_id', 'css_build_time', 'css_engine',
  'db_code', 'description', 'fields', 'id', 'name', 'public', 'show_in_module', 'source_code', 'updated_at', 'updated_by_id', 'url_code',
].sort()

for (const name of TRANSPORTS) {
  describe(`app build cap and list [${name}]`, () => {
    let ctx: Ctx
    let close: () => Promise<void>
    beforeAll(async () => {
      const world = await createWorld(SEED, {quotas: {app_build_bytes: 100_000}})
      const transport = await openTransport(name, world.app)
      ctx = {world, transport, call: makeCall(world, transport)}
      close = async () => {
        await transport.close()
        await world.close()
      }
    })
    afterAll(async () => close?.())

    it('refuses a compile whose build is over app_build_bytes with a 422 under source_code, storing nothing', async () => {
      const r = await ctx.call('POST', '/svc/apps.json', {body: {app: {name: 'Big', url_code: 'big', app_engine: 'react', css_engine: 'none', source_code: REACT}}})
      expect(r.status, r.text.slice(0, 300)).toBe(422)
      expect(r.json.source_code[0]).toMatch(/^compiles to \d{3},\d{3} bytes of JavaScript and CSS; a build may be at most 100,000 bytes \(app_build_bytes\)$/)
      expect((await ctx.call('GET', '/svc/apps.json')).json).toEqual([])
      // Not in the compile cache either: the next try compiles (and is refused) again.
      expect(await ctx.world.store.apps.cachedBuild(buildHash({engine: 'react', cssEngine: 'none', source: REACT}))).toBeNull()
    })

    it('applies the cap to engines stored as they are, and refuses a source over 200,000 characters', async () => {
      const html = (n: number) => ({app: {name: `Page ${n}`, app_engine: 'html', css_engine: 'none', source_code: `<p>${'x'.repeat(n)}</p>`}})
      const over = await ctx.call('POST', '/svc/apps.json', {body: html(120_000)})
      expect(over.status, over.text.slice(0, 300)).toBe(422)
      expect(over.json.source_code[0]).toBe('compiles to 120,007 bytes of JavaScript and CSS; a build may be at most 100,000 bytes (app_build_bytes)')
      expect((await ctx.call('POST', '/svc/apps.json', {body: html(90_000)})).status).toBe(201)
      const long = await ctx.call('POST', '/svc/apps.json', {body: html(200_001)})
      expect(long.status).toBe(422)
      expect(long.json.source_code[0]).toMatch(/is too long \(maximum is 200000 characters\)/)
    })

    it('lists apps with the documented fields, reading no build', async () => {
      await ctx.call('POST', '/svc/apps.json', {body: {app: {name: 'Small', url_code: 'small', app_engine: 'js', css_engine: 'none', source_code: 'console.log(1)'}}})
      const list = await ctx.call('GET', '/svc/apps.json', {as: 'gus'})
      expect(list.status, list.text).toBe(200)
      const small = list.json.find((a: {url_code: string}) => a.url_code === 'small')
      expect(Object.keys(small).sort()).toEqual(LIST_KEYS)
      expect(small).toMatchObject({name: 'Small', app_engine: 'js', source_code: 'console.log(1)', config: {url: '/a/small'}})
      // The store's list itself carries no build and no token: it never selects them.
      const stored = await ctx.world.store.apps.list(ctx.world.accounts.acme!)
      expect(stored.length).toBe(2)
      for (const app of stored) for (const column of ['app_code', 'css_code', 'token']) expect(app).not.toHaveProperty(column)
      // The app itself is still served from its build.
      expect((await ctx.call('GET', `/svc/apps/${small.id}.json`)).json.url_code).toBe('small')
    })
  })
}
