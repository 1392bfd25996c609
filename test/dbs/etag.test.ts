// Optimistic concurrency of records (issue 27, docs/api.md "ETag and If-Match"): GET, POST and
// PATCH answer an ETag; a PATCH or DELETE with an If-Match that no longer matches is a 412 with the
// current record and nothing is written; without If-Match the API behaves as before.
import {expect, it} from 'vitest'
import {beforeCall} from '../helpers/meanwhile.js'
import {describeBothTransports} from '../helpers/scenarios.js'
import {recordEtag as consoleEtag} from '../../src/core/dbs/etag.js'

describeBothTransports('record ETag and If-Match', undefined, (ctx) => {
  let dbId = 0
  const url = (id: number) => `/svc/dbs/${dbId}/records/${id}.json`

  it('answers an ETag on create, read and change; the tag follows the record', async () => {
    const c = ctx()
    dbId = (await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Notes', code: 'notes', schema: {fields: {title: 'string', n: 'integer'}}}}})).json.id
    const created = await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {title: 'a', n: 1}}}})
    expect(created.status).toBe(201)
    const tag = created.headers.get('etag')
    expect(tag).toMatch(/^"r\d+-[0-9a-f]{16}"$/)
    const read = await c.call('GET', url(created.json.id))
    expect(read.headers.get('etag')).toBe(tag)
    // The same tag a client computes from the record it was shown (the console tags list rows so).
    expect(consoleEtag(read.json)).toBe(tag)
    const changed = await c.call('PATCH', url(created.json.id), {body: {record: {data: {n: 2}}}, headers: {'if-match': tag!}})
    expect(changed.status, changed.text).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(tag)
    expect(changed.headers.get('etag')).toBe((await c.call('GET', url(created.json.id))).headers.get('etag'))
  })

  it('a stale If-Match is a 412 with the current record; nothing is written; the fresh tag then works', async () => {
    const c = ctx()
    const r = (await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {title: 'mine', n: 1}}}})).json
    const stale = (await c.call('GET', url(r.id))).headers.get('etag')!
    // Someone else changes it.
    expect((await c.call('PATCH', url(r.id), {body: {record: {data: {title: 'theirs'}}}})).status).toBe(200)
    const refused = await c.call('PATCH', url(r.id), {body: {record: {data: {title: 'overwrite'}}}, headers: {'if-match': stale}})
    expect(refused.status).toBe(412)
    expect(refused.json).toMatchObject({error: expect.stringMatching(/changed since you read it/), current: {id: r.id, data: {title: 'theirs', n: 1}}})
    expect(refused.json.etag).toBe((await c.call('GET', url(r.id))).headers.get('etag'))
    expect((await c.call('GET', url(r.id))).json.data.title).toBe('theirs')
    // Weak tags never match; a list of tags matches when one does; * matches any existing record.
    expect((await c.call('PATCH', url(r.id), {body: {record: {data: {n: 5}}}, headers: {'if-match': `W/${refused.json.etag}`}})).status).toBe(412)
    expect((await c.call('PATCH', url(r.id), {body: {record: {data: {n: 5}}}, headers: {'if-match': `${stale}, ${refused.json.etag}`}})).status).toBe(200)
    expect((await c.call('PATCH', url(r.id), {body: {record: {data: {n: 6}}}, headers: {'if-match': '*'}})).status).toBe(200)
    // DELETE: stale refused (the record stays), current accepted.
    const del = await c.call('DELETE', url(r.id), {headers: {'if-match': stale}})
    expect(del.status).toBe(412)
    expect(del.json.current.data).toMatchObject({title: 'theirs', n: 6})
    expect((await c.call('GET', url(r.id))).status).toBe(200)
    expect((await c.call('DELETE', url(r.id), {headers: {'if-match': del.json.etag}})).status).toBe(204)
    expect((await c.call('DELETE', url(r.id), {headers: {'if-match': '*'}})).status).toBe(404)
  })

  it('without If-Match, writes apply as before (last write wins); junk If-Match never 5xx', async () => {
    const c = ctx()
    const r = (await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {title: 'x'}}}})).json
    expect((await c.call('PATCH', url(r.id), {body: {record: {data: {title: 'y'}}}})).status).toBe(200)
    expect((await c.call('PATCH', url(r.id), {body: {record: {data: {title: 'z'}}}})).json.data.title).toBe('z')
    for (const junk of ['', '""', 'nonsense', '"r1-0000000000000000"', ',,,', 'W/*']) {
      expect((await c.call('PATCH', url(r.id), {body: {record: {data: {title: 'q'}}}, headers: {'if-match': junk}})).status).toBe(412)
    }
    // A validation error still wins over nothing: 422 when the tag matches and the data is bad.
    const tag = (await c.call('GET', url(r.id))).headers.get('etag')!
    expect((await c.call('PATCH', url(r.id), {body: {record: {data: {n: 'many'}}}, headers: {'if-match': tag}})).status).toBe(422)
    expect((await c.call('DELETE', url(r.id))).status).toBe(204)
  })
})

describeBothTransports('database ETag and If-Match', undefined, (ctx) => {
  it('a db answers an ETag that records do not move; a stale If-Match on PATCH, replace or DELETE is a 412 with the current db', async () => {
    const c = ctx()
    const created = await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Tagged', code: 'tagged', schema: {fields: {a: 'string'}}}}})
    expect(created.status).toBe(201)
    const id = created.json.id
    const tag = created.headers.get('etag')!
    expect(tag).toMatch(/^"d\d+-[0-9a-f]{16}"$/)
    expect((await c.call('GET', `/svc/dbs/${id}.json`)).headers.get('etag')).toBe(tag)
    await c.call('POST', `/svc/dbs/${id}/records.json`, {body: {record: {data: {a: 'x'}}}})
    expect((await c.call('GET', `/svc/dbs/${id}.json`)).headers.get('etag')).toBe(tag)
    // Someone else changes the schema.
    const theirs = await c.call('PATCH', `/svc/dbs/${id}.json`, {body: {db: {schema: {fields: {a: 'string', b: 'integer'}}}}, headers: {'if-match': tag}})
    expect(theirs.status).toBe(200)
    const fresh = theirs.headers.get('etag')!
    expect(fresh).not.toBe(tag)
    const stale = await c.call('PATCH', `/svc/dbs/${id}.json`, {body: {db: {name: 'Mine'}}, headers: {'if-match': tag}})
    expect(stale.status).toBe(412)
    expect(stale.json).toMatchObject({etag: fresh, current: {id, name: 'Tagged', schema: {fields: {a: 'string', b: 'integer'}}}})
    const replace = await c.call('PATCH', `/svc/dbs/${id}/replace.json`, {body: {field: 'schema', old_string: 'integer', new_string: 'number'}, headers: {'if-match': tag}})
    expect(replace.status).toBe(412)
    expect((await c.call('DELETE', `/svc/dbs/${id}.json`, {headers: {'if-match': tag}})).status).toBe(412)
    expect((await c.call('GET', `/svc/dbs/${id}.json`)).json).toMatchObject({name: 'Tagged', schema: {fields: {b: 'integer'}}})
    expect((await c.call('PATCH', `/svc/dbs/${id}.json`, {body: {db: {name: 'Mine'}}, headers: {'if-match': fresh}})).status).toBe(200)
    // Without If-Match: as before.
    expect((await c.call('PATCH', `/svc/dbs/${id}.json`, {body: {db: {name: 'Last'}}})).json.name).toBe('Last')
    expect((await c.call('DELETE', `/svc/dbs/${id}.json`)).status).toBe(204)
  })
})

describeBothTransports('a delete checks If-Match inside the store\'s write', undefined, (ctx) => {
  /** Runs `meanwhile` (someone else's change) once, when the route calls the store's `method`, before the store's write begins. */
  const changeBeforeWrite = (method: 'delete' | 'deleteRecord', meanwhile: () => Promise<void>) => beforeCall(ctx().world.store.dbs, method, meanwhile)

  it('a db changed after the DELETE loaded it, before the write: 412 with the current db, nothing deleted', async () => {
    const c = ctx()
    const created = await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Mine', code: 'raced', schema: {fields: {a: 'string'}}}}})
    const {id} = created.json
    const tag = created.headers.get('etag')!
    changeBeforeWrite('delete', async () => {
      expect((await c.call('PATCH', `/svc/dbs/${id}.json`, {body: {db: {name: 'Theirs'}}})).status).toBe(200)
    })
    const refused = await c.call('DELETE', `/svc/dbs/${id}.json`, {headers: {'if-match': tag}})
    expect(refused.status).toBe(412)
    const now = await c.call('GET', `/svc/dbs/${id}.json`)
    expect(now.json.name).toBe('Theirs')
    expect(refused.json).toMatchObject({etag: now.headers.get('etag'), current: {id, name: 'Theirs'}})
    expect((await c.call('DELETE', `/svc/dbs/${id}.json`, {headers: {'if-match': now.headers.get('etag')!}})).status).toBe(204)
    expect((await c.call('GET', `/svc/dbs/${id}.json`)).status).toBe(404)
  })

  it('a record changed after the DELETE loaded its db, before the write: 412 with the current record, nothing deleted', async () => {
    const c = ctx()
    const db = (await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Recs', schema: {fields: {a: 'string'}}}}})).json
    const created = await c.call('POST', `/svc/dbs/${db.id}/records.json`, {body: {record: {data: {a: 'mine'}}}})
    const url = `/svc/dbs/${db.id}/records/${created.json.id}.json`
    changeBeforeWrite('deleteRecord', async () => {
      expect((await c.call('PATCH', url, {body: {record: {data: {a: 'theirs'}}}})).status).toBe(200)
    })
    const refused = await c.call('DELETE', url, {headers: {'if-match': created.headers.get('etag')!}})
    expect(refused.status).toBe(412)
    const now = await c.call('GET', url)
    expect(refused.json).toMatchObject({etag: now.headers.get('etag'), current: {data: {a: 'theirs'}}})
  })
})

describeBothTransports('a db change without If-Match applies to the current db (no lost update)', undefined, (ctx) => {
  /** Someone else's change before the store's update, after the route loaded the db (test/helpers/meanwhile.ts). Returns the restore. */
  const changeBeforeWrite = (meanwhile: () => Promise<void>, times = 1) => beforeCall(ctx().world.store.dbs, 'update', meanwhile, times)
  const create = async (code: string) => {
    const created = await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'Mine', code, schema: {fields: {a: 'string'}}}}})
    expect(created.status, created.text).toBe(201)
    return created.json.id as number
  }
  const dbUrl = (id: number) => `/svc/dbs/${id}.json`

  it('a PATCH of the name while someone else opens public methods: both changes are kept', async () => {
    const c = ctx()
    const id = await create('lost_methods')
    const restore = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', dbUrl(id), {body: {db: {public_methods: {list: true}}}})).status).toBe(200)
    })
    const mine = await c.call('PATCH', dbUrl(id), {body: {db: {name: 'Renamed'}}}).finally(restore)
    expect(mine.status, mine.text).toBe(200)
    expect(mine.json).toMatchObject({name: 'Renamed', public_methods: {list: true}})
    const now = await c.call('GET', dbUrl(id))
    expect(now.json).toMatchObject({name: 'Renamed', public_methods: {list: true}})
    expect(mine.headers.get('etag')).toBe(now.headers.get('etag'))
  })

  it('a PATCH of the schema while someone else renames it, and the reverse: both changes are kept, records indexed by the schema kept', async () => {
    const c = ctx()
    const id = await create('lost_schema')
    expect((await c.call('POST', `/svc/dbs/${id}/records.json`, {body: {record: {data: {a: 'x', n: 5}}}})).status).toBe(201)
    let restore = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', dbUrl(id), {body: {db: {name: 'Theirs'}}})).status).toBe(200)
    })
    const mine = await c.call('PATCH', dbUrl(id), {body: {db: {schema: {fields: {a: 'string', n: 'integer'}}}}}).finally(restore)
    expect(mine.status, mine.text).toBe(200)
    expect(mine.json).toMatchObject({name: 'Theirs', schema: {fields: {a: 'string', n: 'integer'}}})
    restore = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', dbUrl(id), {body: {db: {schema: {fields: {a: 'string', n: 'integer', b: 'string'}}}}})).status).toBe(200)
    })
    const again = await c.call('PATCH', dbUrl(id), {body: {db: {name: 'Mine again'}}}).finally(restore)
    expect(again.status, again.text).toBe(200)
    expect((await c.call('GET', dbUrl(id))).json).toMatchObject({name: 'Mine again', schema: {fields: {a: 'string', n: 'integer', b: 'string'}}})
    // The records are found by the schema's typed field.
    const found = await c.call('GET', `/svc/dbs/${id}/records.json?filter[n]=5`)
    expect(found.status, found.text).toBe(200)
    expect(JSON.stringify(found.json)).toContain('"a":"x"')
  })

  it('a replace in the schema while someone else renames it: both changes are kept', async () => {
    const c = ctx()
    const id = await create('lost_replace')
    const restore = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', dbUrl(id), {body: {db: {name: 'Theirs'}}})).status).toBe(200)
    })
    const mine = await c.call('PATCH', `/svc/dbs/${id}/replace.json`, {body: {field: 'schema', old_string: '"a": "string"', new_string: '"a": "text"'}}).finally(restore)
    expect(mine.status, mine.text).toBe(200)
    expect((await c.call('GET', dbUrl(id))).json).toMatchObject({name: 'Theirs', schema: {fields: {a: 'text'}}})
  })

  it('changed again on every attempt: a 412 with the current db after a few, never the stale merge', async () => {
    const c = ctx()
    const id = await create('lost_busy')
    let n = 0
    const restore = changeBeforeWrite(async () => {
      expect((await c.call('PATCH', dbUrl(id), {body: {db: {name: `busy ${++n}`}}})).status).toBe(200)
    }, 100)
    const refused = await c.call('PATCH', dbUrl(id), {body: {db: {public_methods: {list: true}}}}).finally(restore)
    expect(refused.status, refused.text).toBe(412)
    expect(n).toBeGreaterThan(1)
    const now = await c.call('GET', dbUrl(id))
    expect(now.json).toMatchObject({name: `busy ${n}`, public_methods: {}})
    expect(refused.json).toMatchObject({etag: now.headers.get('etag'), current: {name: `busy ${n}`}})
  })

  it('with If-Match, a change made in between is the client\'s 412, never merged again', async () => {
    const c = ctx()
    const id = await create('lost_ifmatch')
    const tag = (await c.call('GET', dbUrl(id))).headers.get('etag')!
    let calls = 0
    const restore = changeBeforeWrite(async () => {
      calls++
      expect((await c.call('PATCH', dbUrl(id), {body: {db: {name: 'Theirs'}}})).status).toBe(200)
    }, 100)
    const refused = await c.call('PATCH', dbUrl(id), {body: {db: {public_methods: {list: true}}}, headers: {'if-match': tag}}).finally(restore)
    expect(refused.status).toBe(412)
    expect(calls).toBe(1)
    expect((await c.call('GET', dbUrl(id))).json).toMatchObject({name: 'Theirs', public_methods: {}})
  })
})
