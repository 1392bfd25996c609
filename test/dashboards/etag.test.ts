// Optimistic concurrency of dashboards (issues 27 and 28, docs/api.md "ETag and If-Match"): GET,
// create and PATCH answer the ETag of the stored dashboard; a PATCH or DELETE whose If-Match no
// longer matches is a 412 with the dashboard now (as the caller sees it), checked inside the store's
// write; without If-Match the API behaves as before.
import {expect, it} from 'vitest'
import {dashboardEtag} from '../../src/core/etag.js'
import {describeBothTransports} from '../helpers/scenarios.js'
import {DASHBOARD_SEED} from './helpers.js'

const url = (id: number) => `/toolkit/dashboards/${id}.json`
const write = (dashboard: Record<string, unknown>, ifMatch?: string) => ({body: {dashboard}, ...(ifMatch === undefined ? {} : {headers: {'if-match': ifMatch}})})

describeBothTransports('dashboard ETag and If-Match', DASHBOARD_SEED, (ctx) => {
  it('a company dashboard: the tag follows it; a stale PATCH or DELETE is a 412 with the current one, nothing written', async () => {
    const c = ctx()
    const created = await c.call('POST', '/toolkit/dashboards.json', write({name: 'Company', shared: true}))
    expect(created.status, created.text).toBe(201)
    const id = created.json.id
    const tag = created.headers.get('etag')!
    expect(tag).toMatch(/^"b\d+-[0-9a-f]{16}"$/)
    expect((await c.call('GET', url(id))).headers.get('etag')).toBe(tag)
    expect(dashboardEtag((await c.call('GET', '/toolkit/dashboards.json')).json.find((d: {id: number}) => d.id === id))).toBe(tag)
    // Another manager of the account renames it.
    const theirs = await c.call('PATCH', url(id), {as: 'boss', ...write({name: 'Theirs'}, tag)})
    expect(theirs.status, theirs.text).toBe(200)
    const fresh = theirs.headers.get('etag')!
    expect(fresh).not.toBe(tag)
    const stale = await c.call('PATCH', url(id), write({name: 'Mine', layout: []}, tag))
    expect(stale.status).toBe(412)
    expect(stale.json).toMatchObject({error: expect.stringMatching(/dashboard changed since you read it/), etag: fresh, current: {id, name: 'Theirs', editable: true}})
    expect((await c.call('DELETE', url(id), {headers: {'if-match': tag}})).status).toBe(412)
    expect((await c.call('GET', url(id))).json).toMatchObject({name: 'Theirs'})
    const mine = await c.call('PATCH', url(id), write({name: 'Mine'}, fresh))
    expect(mine.status).toBe(200)
    expect(mine.headers.get('etag')).toBe((await c.call('GET', url(id))).headers.get('etag'))
    // Concurrent writes on one tag: one applies, the other is a 412.
    const now = mine.headers.get('etag')!
    const replies = await Promise.all(['A', 'B'].map((n) => c.call('PATCH', url(id), write({name: n}, now))))
    expect(replies.map((r) => r.status).sort()).toEqual([200, 412])
    // Without If-Match: as before. Junk never 5xx. Another account: 404.
    expect((await c.call('PATCH', url(id), write({name: 'Last'}))).json.name).toBe('Last')
    for (const junk of ['', 'nonsense', 'W/*', ',']) expect((await c.call('PATCH', url(id), write({name: 'q'}, junk))).status).toBe(412)
    expect((await c.call('DELETE', url(id), {as: 'mallory', headers: {'if-match': 'x'}})).status).toBe(404)
    const last = (await c.call('GET', url(id))).headers.get('etag')!
    expect((await c.call('DELETE', url(id), {headers: {'if-match': last}})).status).toBe(204)
  })

  it('a personal dashboard: the same, for its author', async () => {
    const c = ctx()
    const created = await c.call('POST', '/toolkit/dashboards.json', {as: 'alice', ...write({name: 'Own'})})
    expect(created.status, created.text).toBe(201)
    const tag = created.headers.get('etag')!
    expect((await c.call('PATCH', url(created.json.id), {as: 'alice', ...write({name: 'Own 2'}, tag)})).status).toBe(200)
    const stale = await c.call('DELETE', url(created.json.id), {as: 'alice', headers: {'if-match': tag}})
    expect(stale.status).toBe(412)
    expect(stale.json.current).toMatchObject({name: 'Own 2', shared: false})
    expect((await c.call('DELETE', url(created.json.id), {as: 'alice', headers: {'if-match': stale.json.etag}})).status).toBe(204)
  })
})
