// `POST /svc/dbs/plan.json` (issue 38: the db-change plan written once, src/core/dbs/plan.ts): the
// typed diff, the data a change drops and the records it leaves invalid, as svc db push, svc push
// and the console's schema editor show them; nothing is written. Both transports.
import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

describeBothTransports('db change plan', undefined, (ctx) => {
  it('plans an update: diff lines, data loss with counts, invalid records; writes nothing', async () => {
    const {call} = ctx()
    const created = await call('POST', '/svc/dbs.json', {body: {db: {name: 'Guestbook', code: 'gb', schema: {fields: {author: 'string', message: 'text', stars: 'string'}}}}})
    expect(created.status).toBe(201)
    for (const data of [{author: 'a', message: 'hi', stars: '3'}, {author: 'b', message: 'yo', stars: 'lots'}, {author: 'c', stars: '1'}]) {
      expect((await call('POST', '/svc/dbs/gb/records.json', {body: {record: {data}}})).status).toBe(201)
    }
    const before = await call('GET', '/svc/dbs/gb.json')
    const plan = await call('POST', '/svc/dbs/plan.json', {body: {db: {name: 'Guestbook', code: 'gb', schema: {fields: {author: 'string', stars: 'integer', mood: 'string'}}}}})
    expect(plan.status, plan.text).toBe(200)
    expect(plan.json).toMatchObject({db_id: created.json.id, etag: before.headers.get('etag'), create: false})
    expect(plan.json.changes.map((c: any) => c.text)).toEqual(['- field message (text)', '~ field stars: string → integer', '+ field mood (string)'])
    expect(plan.json.data_loss).toEqual([{change: expect.objectContaining({kind: 'field_removed', field: 'message'}), records: 2, text: 'field message (text) (2 records)'}])
    expect(plan.json.invalid_records).toMatchObject({count: 1, first: [{field: 'stars', message: 'must be an integer', text: expect.stringMatching(/^#\d+ stars: must be an integer$/)}]})
    // Nothing written.
    expect((await call('GET', '/svc/dbs/gb.json')).json.schema).toEqual(before.json.schema)
    // By id too; a PATCH's merge (a plan of the name only keeps the schema).
    const byId = await call('POST', '/svc/dbs/plan.json', {body: {id: created.json.id, db: {name: 'Book'}}})
    expect(byId.status, byId.text).toBe(200)
    expect(byId.json.changes.map((c: any) => c.text)).toEqual(['~ name: "Guestbook" → "Book"'])
  })

  it('plans a create; an invalid definition is the write\'s 422; unknown id 404; no permission 403; another account\'s db is not seen', async () => {
    const {call} = ctx()
    const create = await call('POST', '/svc/dbs/plan.json', {body: {db: {name: 'New', code: 'brand-new', schema: {fields: {n: 'integer'}}, public_methods: {list: true}}}})
    expect(create.status, create.text).toBe(200)
    expect(create.json).toMatchObject({db_id: null, etag: null, create: true, data_loss: [], invalid_records: {count: 0, first: []}})
    expect(create.json.changes.map((c: any) => c.text)).toEqual(['+ database brand-new (new)', '+ field n (integer)', '+ public method list'])
    expect((await call('GET', '/svc/dbs/brand-new.json')).status).toBe(404)
    const bad = await call('POST', '/svc/dbs/plan.json', {body: {db: {name: 'Bad', code: 'bad', schema: {fields: {n: 'nope'}}}}})
    expect(bad.status, bad.text).toBe(422)
    expect(bad.json).toEqual((await call('POST', '/svc/dbs.json', {body: {db: {name: 'Bad', code: 'bad', schema: {fields: {n: 'nope'}}}}})).json)
    expect((await call('POST', '/svc/dbs/plan.json', {body: {db: {code: 'x'}}})).json).toEqual({name: ["can't be blank"]})
    expect((await call('POST', '/svc/dbs/plan.json', {body: {id: 999999, db: {name: 'x'}}})).status).toBe(404)
    expect((await call('POST', '/svc/dbs/plan.json', {body: {db: 'x'}})).status).toBe(400)
    expect((await call('POST', '/svc/dbs/plan.json', {rawBody: '{'})).status).toBe(400)
    expect((await call('POST', '/svc/dbs/plan.json', {as: 'alice', body: {db: {name: 'x'}}})).status).toBe(403)
    expect((await call('POST', '/svc/dbs/plan.json', {as: null, body: {db: {name: 'x'}}})).status).toBe(401)
    // mallory (another account) with the code of acme's db: a create in her account, nothing of acme's read.
    const other = await call('POST', '/svc/dbs/plan.json', {as: 'mallory', body: {db: {name: 'Guestbook', code: 'gb'}}})
    expect(other.json).toMatchObject({create: true, db_id: null})
  })
})
