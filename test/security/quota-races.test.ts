// Per-account and per-database quotas under parallel requests (docs/reliability.md "Quotas"): the
// count and the insert are one step (a transaction lock per account or db on PostgreSQL, the one
// writer of SQLite), so N parallel creates over HTTP stop exactly at the quota. The PostgreSQL
// half (scripts/pg-test-cluster.sh run ...) is where they raced: 150 creates made 135-144 crons
// against a quota of 50.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {makeCall, type Ctx} from '../helpers/scenarios.js'
import {createWorld, overHttp} from '../helpers/world.js'

const QUOTA = 30
const PARALLEL = 150
const SEED = {accounts: ['acme', 'other'], users: [{login: 'admin', role: 'admin' as const}, {login: 'mallory', account: 'other', role: 'admin' as const}]}

describe('quotas hold under parallel creates (over HTTP)', () => {
  let ctx: Ctx & {close(): Promise<void>}
  beforeAll(async () => {
    const world = await createWorld(SEED, {quotas: {crons_per_account: QUOTA, public_db_records: QUOTA}})
    const transport = await overHttp(world.app)
    ctx = {world, transport, call: makeCall(world, transport), close: async () => {
      await transport.close()
      await world.close()
    }}
  })
  afterAll(async () => ctx?.close())

  const statuses = (replies: {status: number}[]) => replies.reduce<Record<number, number>>((n, r) => ({...n, [r.status]: (n[r.status] ?? 0) + 1}), {})

  it(`${PARALLEL} parallel cron creates of one account make exactly ${QUOTA} crons; the rest are 422; another account is not held back`, async () => {
    for (const as of ['admin', 'mallory']) {
      const flow = await ctx.call('POST', '/svc/resources.json', {as, body: {resource: {kind: 'svc/custom_flow', code: 'tick', fields: {program: []}}}})
      expect(flow.status, flow.text).toBe(201)
    }
    const cron = {cron: {target_code: 'tick', schedule: '0 3 * * *', active: false}}
    const replies = await Promise.all(Array.from({length: PARALLEL}, (_, i) => ctx.call('POST', '/account/crons.json', {as: i % 6 === 5 ? 'mallory' : 'admin', body: cron})))
    const admins = replies.filter((_, i) => i % 6 !== 5)
    expect(statuses(admins)).toEqual({201: QUOTA, 422: admins.length - QUOTA})
    expect(admins.find((r) => r.status === 422)!.json).toEqual({cron: [`an account has at most ${QUOTA} crons`]})
    expect((await ctx.call('GET', '/account/crons.json')).json).toHaveLength(QUOTA)
    expect(statuses(replies.filter((_, i) => i % 6 === 5))).toEqual({201: PARALLEL / 6})
  })

  // 100: under the public write limit of one visitor (120 a minute).
  it(`100 parallel public creates into one db make exactly ${QUOTA} records`, async () => {
    const db = await ctx.call('POST', '/svc/dbs.json', {body: {db: {name: 'Guestbook', code: 'guestbook', schema: {fields: {name: 'string'}},
      public_methods: {create: {allowed_fields: ['name']}}}}})
    expect(db.status, db.text).toBe(201)
    const replies = await Promise.all(Array.from({length: 100}, (_, i) =>
      ctx.call('POST', '/svc/db/guestbook/create', {as: null, body: {data: {name: `guest ${i}`}}})))
    expect(statuses(replies)).toEqual({201: QUOTA, 403: 100 - QUOTA})
    expect(replies.find((r) => r.status === 403)!.json).toEqual({error: `this database is full for public creates (${QUOTA} records)`})
    const records = await ctx.call('GET', `/svc/dbs/${db.json.id}/records.json?limit=100`)
    expect(records.json).toHaveLength(QUOTA)
  })
})
