// Optimistic concurrency of apps (issues 27 and 28, docs/api.md "ETag and If-Match"): GET, create,
// PATCH and replace answer an ETag; PATCH, replace and DELETE with an If-Match that no longer
// matches are a 412 with the current app, nothing written — checked before the compile (a write
// that cannot apply compiles nothing) and again inside the store's write.
import {expect, it, vi} from 'vitest'
import {appEtag} from '../../src/core/etag.js'
import {beforeCall} from '../helpers/meanwhile.js'
import {describeBothTransports} from '../helpers/scenarios.js'

// Compiles are slow on a busy 2-core machine.
vi.setConfig({testTimeout: 120_000})

const url = (id: string) => `/svc/apps/${id}.json`
// Sources of a compiling engine (kaboom): a js app is used as written and never compiles.
const page = (text: string) => `document.body.textContent = '${text}'\n`
const patch = (app: Record<string, unknown>, ifMatch?: string) => ({body: {app}, ...(ifMatch === undefined ? {} : {headers: {'if-match': ifMatch}})})

describeBothTransports('app ETag and If-Match', undefined, (ctx) => {
  const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  let id = ''
  let first = ''

  it('answers an ETag on create, read, change and replace; the tag is the one a list row gives', async () => {
    const c = ctx()
    const created = await c.call('POST', '/svc/apps.json', patch({name: 'Tagged', app_engine: 'kaboom', css_engine: 'none', source_code: page(`one ${run}`)}))
    expect(created.status, created.text.slice(0, 300)).toBe(201)
    id = created.json.id
    first = created.headers.get('etag')!
    expect(first).toMatch(/^"a[0-9a-f-]{36}-[0-9a-f]{16}"$/)
    expect((await c.call('GET', url(id))).headers.get('etag')).toBe(first)
    expect(appEtag((await c.call('GET', '/svc/apps.json')).json.find((a: {id: string}) => a.id === id))).toBe(first)
    const changed = await c.call('PATCH', url(id), patch({description: 'two'}, first))
    expect(changed.status, changed.text.slice(0, 300)).toBe(200)
    const second = changed.headers.get('etag')!
    expect(second).not.toBe(first)
    expect((await c.call('GET', url(id))).headers.get('etag')).toBe(second)
    const replaced = await c.call('PATCH', `/svc/apps/${id}/replace.json`, {body: {field: 'source_code', old_string: 'one', new_string: 'three'}, headers: {'if-match': second}})
    expect(replaced.status, replaced.text.slice(0, 300)).toBe(200)
    expect(replaced.headers.get('etag')).toBe((await c.call('GET', url(id))).headers.get('etag'))
  })

  it('a stale If-Match is a 412 with the current app: nothing written and nothing compiled', async () => {
    const c = ctx()
    const now = await c.call('GET', url(id))
    const refused = await c.call('PATCH', url(id), patch({source_code: page(`never compiled ${run}`), name: 'Mine'}, first))
    expect(refused.status).toBe(412)
    expect(refused.headers.get('x-svc-build')).toBeNull()
    expect(refused.json).toMatchObject({error: expect.stringMatching(/app changed since you read it/), etag: now.headers.get('etag'),
      current: {id, name: 'Tagged', description: 'two', source_code: page(`three ${run}`)}})
    expect(refused.text).not.toMatch(/app_code|css_code|"token"/)
    expect((await c.call('GET', url(id))).json).toMatchObject({name: 'Tagged', source_code: page(`three ${run}`)})
    // The refused source was never compiled: the same source sent with the current tag compiles (not from the cache).
    const applied = await c.call('PATCH', url(id), patch({source_code: page(`never compiled ${run}`)}, refused.json.etag))
    expect(applied.status, applied.text.slice(0, 300)).toBe(200)
    expect(applied.headers.get('x-svc-build')).toBe('compiled')
    // replace and DELETE with the stale tag: 412, the app stays.
    const replace = await c.call('PATCH', `/svc/apps/${id}/replace.json`, {body: {field: 'source_code', old_string: 'never', new_string: 'ever'}, headers: {'if-match': first}})
    expect(replace.status).toBe(412)
    expect((await c.call('DELETE', url(id), {headers: {'if-match': first}})).status).toBe(412)
    expect((await c.call('GET', url(id))).status).toBe(200)
  })

  it('two writes on one tag that both compile: one applies, the other is a 412 (checked again inside the write)', async () => {
    const c = ctx()
    const tag = (await c.call('GET', url(id))).headers.get('etag')!
    const replies = await Promise.all(['left', 'right'].map((side) => c.call('PATCH', url(id), patch({source_code: page(`${side} ${run}`)}, tag))))
    expect(replies.map((r) => r.status).sort()).toEqual([200, 412])
    const winner = replies.find((r) => r.status === 200)!
    const loser = replies.find((r) => r.status === 412)!
    expect(loser.json.current.source_code).toBe(winner.json.source_code)
    expect((await c.call('GET', url(id))).json.source_code).toBe(winner.json.source_code)
  })

  it('without If-Match writes apply as before; junk never 5xx; another account gets a 404; the current tag deletes', async () => {
    const c = ctx()
    expect((await c.call('PATCH', url(id), patch({description: 'free'}))).json.description).toBe('free')
    for (const junk of ['', '""', 'nonsense', ',,,', 'W/*', 'x'.repeat(5000)]) {
      expect((await c.call('PATCH', url(id), patch({description: 'q'}, junk))).status).toBe(412)
    }
    const tag = (await c.call('GET', url(id))).headers.get('etag')!
    expect((await c.call('PATCH', url(id), patch({name: ''}, tag))).status).toBe(422)
    const foreign = await c.call('DELETE', url(id), {as: 'mallory', headers: {'if-match': 'nonsense'}})
    expect(foreign.status).toBe(404)
    expect(foreign.text).not.toContain('source_code')
    expect((await c.call('DELETE', url(id), {headers: {'if-match': tag}})).status).toBe(204)
    expect((await c.call('DELETE', url(id), {headers: {'if-match': '*'}})).status).toBe(404)
  })
})

describeBothTransports('an app change without If-Match applies to the current app (no lost update)', undefined, (ctx) => {
  const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  /**
   * Someone else's change before the store's update, after the route loaded and compiled
   * (test/helpers/meanwhile.ts). Counts the builds the routes store (one per compile), not those of `meanwhile`.
   */
  function changeBeforeWrite(meanwhile: () => Promise<void>, times = 1) {
    const apps = ctx().world.store.apps
    const seen = {builds: 0}
    let inside = false
    const restoreUpdate = beforeCall(apps, 'update', async () => {
      inside = true
      try {
        await meanwhile()
      } finally {
        inside = false
      }
    }, times)
    const saveBuild = apps.saveBuild
    apps.saveBuild = async (...args) => {
      if (!inside) seen.builds++
      return saveBuild.apply(apps, args)
    }
    const restore = () => {
      restoreUpdate()
      apps.saveBuild = saveBuild
    }
    return {seen, restore}
  }
  const create = async (name: string) => {
    const created = await ctx().call('POST', '/svc/apps.json', patch({name, app_engine: 'kaboom', css_engine: 'none', source_code: page(`first ${name} ${run}`)}))
    expect(created.status, created.text.slice(0, 300)).toBe(201)
    return created.json.id as string
  }

  it('a new source while someone else changes the description: both kept, compiled once', async () => {
    const c = ctx()
    const id = await create('lost-source')
    const {seen, restore} = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', url(id), patch({description: 'theirs'}))).status).toBe(200)
    })
    const mine = await c.call('PATCH', url(id), patch({source_code: page(`mine ${run}`)})).finally(restore)
    expect(mine.status, mine.text.slice(0, 300)).toBe(200)
    expect(mine.headers.get('x-svc-build')).toBe('compiled')
    expect(seen.builds).toBe(1)
    expect(mine.json).toMatchObject({description: 'theirs', source_code: page(`mine ${run}`)})
    const now = await c.call('GET', url(id))
    expect(now.json).toMatchObject({description: 'theirs', source_code: page(`mine ${run}`)})
    expect(mine.headers.get('etag')).toBe(now.headers.get('etag'))
  })

  it('a rename while someone else changes the source: both kept, with their build', async () => {
    const c = ctx()
    const id = await create('lost-name')
    const {restore} = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', url(id), patch({source_code: page(`theirs ${run}`)}))).status).toBe(200)
    })
    const mine = await c.call('PATCH', url(id), patch({name: 'Renamed'})).finally(restore)
    expect(mine.status, mine.text.slice(0, 300)).toBe(200)
    expect(mine.headers.get('x-svc-build')).toBe('unchanged')
    expect((await c.call('GET', url(id))).json).toMatchObject({name: 'Renamed', source_code: page(`theirs ${run}`)})
  })

  it('a replace in the source while someone else changes the description: both kept', async () => {
    const c = ctx()
    const id = await create('lost-replace')
    const {restore} = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', url(id), patch({description: 'theirs'}))).status).toBe(200)
    })
    const mine = await c.call('PATCH', `/svc/apps/${id}/replace.json`, {body: {field: 'source_code', old_string: 'first', new_string: 'second'}}).finally(restore)
    expect(mine.status, mine.text.slice(0, 300)).toBe(200)
    expect((await c.call('GET', url(id))).json).toMatchObject({description: 'theirs', source_code: page(`second lost-replace ${run}`)})
  })

  it('changed again on every attempt: a 412 with the current app after a few; with If-Match, never merged again', async () => {
    const c = ctx()
    const id = await create('lost-busy')
    let n = 0
    let {restore} = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', url(id), patch({description: `busy ${++n}`}))).status).toBe(200)
    }, 100)
    const refused = await c.call('PATCH', url(id), patch({name: 'Mine'})).finally(restore)
    expect(refused.status, refused.text.slice(0, 300)).toBe(412)
    expect(n).toBeGreaterThan(1)
    const now = await c.call('GET', url(id))
    expect(now.json).toMatchObject({name: 'lost-busy', description: `busy ${n}`})
    expect(refused.json).toMatchObject({etag: now.headers.get('etag'), current: {description: `busy ${n}`}})
    n = 0
    ;({restore} = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', url(id), patch({description: `busy ${++n}`}))).status).toBe(200)
    }, 100))
    const stale = await c.call('PATCH', url(id), patch({name: 'Mine'}, now.headers.get('etag')!)).finally(restore)
    expect(stale.status).toBe(412)
    expect(n).toBe(1)
    expect((await c.call('GET', url(id))).json).toMatchObject({name: 'lost-busy', description: 'busy 1'})
  })
})
