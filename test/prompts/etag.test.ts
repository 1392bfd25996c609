// Optimistic concurrency of prompts (issues 27 and 28, docs/api.md "ETag and If-Match"): GET, POST
// and PATCH answer an ETag; a PATCH or DELETE whose If-Match no longer matches is a 412 with the
// current prompt and nothing is written, checked inside the store's write; without If-Match the API
// behaves as before.
import {expect, it} from 'vitest'
import {promptEtag} from '../../src/core/etag.js'
import {beforeCall} from '../helpers/meanwhile.js'
import {describeBothTransports} from '../helpers/scenarios.js'
import type {Seed} from '../helpers/world.js'

/** Alice and the admin share team red: the admin sees alice's team prompt and may change it. Only the admin is in team blue. */
const SEED: Seed = {
  accounts: ['acme', 'other'],
  users: [{login: 'admin', role: 'admin', teams: ['red', 'blue']}, {login: 'alice', role: 'user', teams: ['red']}, {login: 'mallory', account: 'other', role: 'admin'}],
}

const url = (id: string) => `/svc/prompts/${id}.json`
const change = (p: Record<string, unknown>, ifMatch?: string) => ({body: {prompt: p}, ...(ifMatch === undefined ? {} : {headers: {'if-match': ifMatch}})})

describeBothTransports('prompt ETag and If-Match', SEED, (ctx) => {
  it('answers an ETag on create, read and change; the tag follows the prompt and is the one a list row gives', async () => {
    const c = ctx()
    const created = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...change({name: 'Greet', code: 'greet_tag', content: 'Hello', scope: 'user'})})
    expect(created.status, created.text).toBe(201)
    const tag = created.headers.get('etag')
    expect(tag).toMatch(/^"p[0-9a-f-]{36}-[0-9a-f]{16}"$/)
    const read = await c.call('GET', url(created.json.id), {as: 'alice'})
    expect(read.headers.get('etag')).toBe(tag)
    const listed = (await c.call('GET', '/svc/prompts.json?code=greet_tag', {as: 'alice'})).json[0]
    expect(promptEtag(listed)).toBe(tag)
    const changed = await c.call('PATCH', url(created.json.id), {as: 'alice', ...change({content: 'Hello again'}, tag!)})
    expect(changed.status, changed.text).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(tag)
    expect(changed.headers.get('etag')).toBe((await c.call('GET', url(created.json.id), {as: 'alice'})).headers.get('etag'))
  })

  it('a stale If-Match is a 412 with the current prompt; nothing is written; the fresh tag then works', async () => {
    const c = ctx()
    const p = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...change({name: 'Mine', code: 'stale_p', content: 'one', scope: 'team', scope_id: c.world.users.alice!.teamIds[0]})})
    const stale = p.headers.get('etag')!
    // An admin changes it meanwhile.
    expect((await c.call('PATCH', url(p.json.id), change({content: 'theirs'}))).status).toBe(200)
    const refused = await c.call('PATCH', url(p.json.id), {as: 'alice', ...change({content: 'overwrite', name: 'Renamed'}, stale)})
    expect(refused.status).toBe(412)
    expect(refused.json).toMatchObject({error: expect.stringMatching(/prompt changed since you read it/), current: {id: p.json.id, content: 'theirs', name: 'Mine'}})
    expect(refused.json.current.token).toBeUndefined()
    const now = await c.call('GET', url(p.json.id), {as: 'alice'})
    expect(refused.json.etag).toBe(now.headers.get('etag'))
    expect(now.json).toMatchObject({content: 'theirs', name: 'Mine'})
    // Weak tags never match; a list matches when one does; * matches any existing prompt.
    expect((await c.call('PATCH', url(p.json.id), {as: 'alice', ...change({content: 'x'}, `W/${refused.json.etag}`)})).status).toBe(412)
    expect((await c.call('PATCH', url(p.json.id), {as: 'alice', ...change({content: 'mine'}, `${stale}, ${refused.json.etag}`)})).status).toBe(200)
    expect((await c.call('PATCH', url(p.json.id), {as: 'alice', ...change({content: 'mine2'}, '*')})).status).toBe(200)
    // DELETE: stale refused (the prompt stays), current accepted.
    const del = await c.call('DELETE', url(p.json.id), {as: 'alice', headers: {'if-match': stale}})
    expect(del.status).toBe(412)
    expect(del.json.current.content).toBe('mine2')
    expect((await c.call('GET', url(p.json.id), {as: 'alice'})).status).toBe(200)
    expect((await c.call('DELETE', url(p.json.id), {as: 'alice', headers: {'if-match': del.json.etag}})).status).toBe(204)
    expect((await c.call('DELETE', url(p.json.id), {as: 'alice', headers: {'if-match': '*'}})).status).toBe(404)
  })

  it('concurrent writes on one tag: exactly one applies, the others are 412 (checked inside the write)', async () => {
    const c = ctx()
    const p = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...change({name: 'Race', code: 'race_p', content: 'start', scope: 'user'})})
    const tag = p.headers.get('etag')!
    const replies = await Promise.all([1, 2, 3, 4, 5].map((n) => c.call('PATCH', url(p.json.id), {as: 'alice', ...change({content: `writer ${n}`}, tag)})))
    expect(replies.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412])
    const winner = replies.find((r) => r.status === 200)!
    expect((await c.call('GET', url(p.json.id), {as: 'alice'})).json.content).toBe(winner.json.content)
    for (const r of replies.filter((x) => x.status === 412)) expect(r.json.current.content).toBe(winner.json.content)
  })

  it('without If-Match, writes apply as before; junk If-Match never 5xx; another account gets a 404, never the prompt', async () => {
    const c = ctx()
    const p = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...change({name: 'Free', code: 'free_p', content: 'a', scope: 'user'})})
    expect((await c.call('PATCH', url(p.json.id), {as: 'alice', ...change({content: 'b'})})).json.content).toBe('b')
    for (const junk of ['', '""', 'nonsense', `"p${p.json.id}-0000000000000000"`, ',,,', 'W/*', 'x'.repeat(5000)]) {
      expect((await c.call('PATCH', url(p.json.id), {as: 'alice', ...change({content: 'q'}, junk)})).status).toBe(412)
    }
    const tag = (await c.call('GET', url(p.json.id), {as: 'alice'})).headers.get('etag')!
    // A matching tag with bad data is still the 422 (nothing written).
    expect((await c.call('PATCH', url(p.json.id), {as: 'alice', ...change({content: '{% if %}'}, tag)})).status).toBe(422)
    const foreign = await c.call('PATCH', url(p.json.id), {as: 'mallory', ...change({content: 'pwn'}, 'nonsense')})
    expect(foreign.status).toBe(404)
    expect(foreign.text).not.toContain('"content"')
    expect((await c.call('DELETE', url(p.json.id), {as: 'mallory', headers: {'if-match': tag}})).status).toBe(404)
    expect((await c.call('DELETE', url(p.json.id), {as: 'alice'})).status).toBe(204)
  })
})

describeBothTransports('a PATCH without If-Match applies to the current prompt (no lost update)', SEED, (ctx) => {
  /** Someone else's change before the store's update, after the route loaded the prompt (test/helpers/meanwhile.ts). Returns the restore. */
  const changeBeforeWrite = (meanwhile: () => Promise<void>, times = 1) => beforeCall(ctx().world.store.prompts, 'update', meanwhile, times)
  const create = async (code: string) => {
    const c = ctx()
    const p = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...change({name: 'Shared', code, content: 'original', scope: 'team', scope_id: c.world.users.alice!.teamIds[0]})})
    expect(p.status, p.text).toBe(201)
    return p.json.id as string
  }

  it('alice changes the kind while the admin changes the content: both changes are kept', async () => {
    const c = ctx()
    const id = await create('lost_kind')
    const restore = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', url(id), change({content: 'the admin\'s text'}))).status).toBe(200)
    })
    const mine = await c.call('PATCH', url(id), {as: 'alice', ...change({kind: 'agent'})}).finally(restore)
    expect(mine.status, mine.text).toBe(200)
    expect(mine.json).toMatchObject({kind: 'agent', content: 'the admin\'s text'})
    const now = await c.call('GET', url(id), {as: 'alice'})
    expect(now.json).toMatchObject({kind: 'agent', content: 'the admin\'s text'})
    expect(mine.headers.get('etag')).toBe(now.headers.get('etag'))
  })

  it('the route\'s checks run again on the version changed meanwhile: moved to a team alice is not in, she gets a 404 and nothing is written', async () => {
    const c = ctx()
    const id = await create('lost_scope')
    const blue = c.world.users.admin!.teamIds.find((t) => !c.world.users.alice!.teamIds.includes(t))!
    const restore = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', url(id), change({scope_id: blue}))).status).toBe(200)
    })
    const refused = await c.call('PATCH', url(id), {as: 'alice', ...change({content: 'alice\'s text'})}).finally(restore)
    expect(refused.status, refused.text).toBe(404)
    expect(refused.text).not.toContain('original')
    expect((await c.call('GET', url(id))).json).toMatchObject({scope: 'team', scope_id: blue, content: 'original'})
  })

  it('changed again on every attempt: a 412 with the current prompt after a few, never the stale merge', async () => {
    const c = ctx()
    const id = await create('lost_busy')
    let n = 0
    const restore = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', url(id), change({content: `busy ${++n}`}))).status).toBe(200)
    }, 100)
    const refused = await c.call('PATCH', url(id), {as: 'alice', ...change({kind: 'agent'})}).finally(restore)
    expect(refused.status, refused.text).toBe(412)
    expect(refused.json.error).toBe('the prompt changed again each of the 3 times this change was applied over it; nothing was written. Send it again')
    expect(n).toBe(3)
    const now = await c.call('GET', url(id), {as: 'alice'})
    expect(now.json).toMatchObject({kind: 'chat', content: `busy ${n}`})
    expect(refused.json).toMatchObject({etag: now.headers.get('etag'), current: {content: `busy ${n}`}})
  })

  it('with If-Match, a change made in between is the client\'s 412, never merged again', async () => {
    const c = ctx()
    const id = await create('lost_ifmatch')
    const tag = (await c.call('GET', url(id), {as: 'alice'})).headers.get('etag')!
    let calls = 0
    const restore = changeBeforeWrite(async () => {
      calls++
      expect((await c.call('PATCH', url(id), change({content: 'theirs'}))).status).toBe(200)
    }, 100)
    const refused = await c.call('PATCH', url(id), {as: 'alice', ...change({kind: 'agent'}, tag)}).finally(restore)
    expect(refused.status).toBe(412)
    expect(calls).toBe(1)
    expect((await c.call('GET', url(id), {as: 'alice'})).json).toMatchObject({kind: 'chat', content: 'theirs'})
  })
})
