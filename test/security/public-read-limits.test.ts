// Issue 40 N4: public reads had no rate limit — four anonymous readers of a 300k-record db took
// another account's p50 from 1 ms to 2 s. Reads now draw on budgets of server time per visitor,
// per client address and per db (quotas public_read_ms_per_*): past one, 429 with Retry-After.
// Budgets here are a few milliseconds, so each test reaches them in a handful of reads on any
// machine (every read is charged at least 1 ms): counts are bounded, never timed.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createApp} from '../../src/http/app.js'
import type {Quotas} from '../../src/core/quotas.js'
import {svcServe} from '../helpers/cli.js'
import {makeCall, type Reply} from '../helpers/scenarios.js'
import {pg} from '../helpers/pg.js'
import {createWorld, inProcess, openTransport, TRANSPORTS, type Transport, type World} from '../helpers/world.js'

const SEED = {
  accounts: ['acme', 'other'],
  users: [{login: 'admin', role: 'admin' as const}, {login: 'mallory', account: 'other', role: 'admin' as const}],
}
const OFF = 1_000_000_000
const DBS = [
  {name: 'Board', code: 'board', public_methods: {list: true, get: true, search: true}},
  {name: 'Wall', code: 'wall', public_methods: {list: true}},
  // A list scoped to the visitor: it hands out the signed visitor cookie.
  {name: 'Notes', code: 'notes', public_methods: {list: {scope_by: 'visitor'}, create: {auto_fields: {visitor: '{cookie_key}'}}}},
]

/** A world over one transport with `quotas`, the three dbs and a record in board. */
function withWorld(quotas: Partial<Quotas>, fn: (ctx: () => {call: ReturnType<typeof makeCall>; world: World}) => void) {
  for (const name of TRANSPORTS) {
    describe(`[${name}]`, () => {
      let world: World
      let transport: Transport
      let call: ReturnType<typeof makeCall>
      beforeAll(async () => {
        world = await createWorld(SEED, {quotas, trustProxy: true})
        transport = await openTransport(name, world.app)
        call = makeCall(world, transport)
        for (const db of DBS) {
          const r = await call('POST', '/svc/dbs.json', {body: {db}})
          expect(r.status, r.text).toBe(201)
        }
        const board = (await call('GET', '/svc/dbs.json')).json.find((d: {code: string}) => d.code === 'board')
        expect((await call('POST', `/svc/dbs/${board.id}/records.json`, {body: {record: {data: {title: 'hello'}}}})).status).toBe(201)
      })
      afterAll(async () => {
        await transport?.close()
        await world?.close()
      })
      fn(() => ({call, world}))
    })
  }
}

const from = (ip: string, extra: Record<string, string> = {}) => ({as: null, headers: {'x-forwarded-for': ip, ...extra}})

/** Reads until the first 429 (at most `max`): the statuses. */
async function readUntilRefused(read: () => Promise<Reply>, max: number): Promise<{statuses: number[]; refused?: Reply}> {
  const statuses: number[] = []
  for (let i = 0; i < max; i++) {
    const r = await read()
    statuses.push(r.status)
    if (r.status === 429) return {statuses, refused: r}
  }
  return {statuses}
}

describe('per client address', () => {
  withWorld({public_read_ms_per_ip: 5, public_read_ms_per_visitor: OFF, public_read_ms_per_db: OFF}, (ctx) => {
    it('refuses an address past its budget with 429 and Retry-After; other addresses, members and the private API go on', async () => {
      const {call} = ctx()
      // 5 ms a minute, at least 1 ms a read: at most 5 reads spend it, a sixth passes on what refilled
      // meanwhile (a read passes while anything is left), then 429. The first read always passes.
      const {statuses, refused} = await readUntilRefused(() => call('GET', '/svc/db/board/list', from('203.0.113.5')), 10)
      expect(statuses[0]).toBe(200)
      expect(refused, statuses.join(',')).toBeDefined()
      expect(statuses.length).toBeLessThanOrEqual(7)
      expect(refused!.json).toEqual({error: expect.stringMatching(/^too many public reads from this client address: they may take 5 ms of server time a minute; retry in \d+ s$/)})
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      // Every read method of every db draws on the address's budget.
      for (const path of ['board/search?q=hello', 'board/get?id=1', 'wall/list']) {
        expect((await call('GET', `/svc/db/${path}`, from('203.0.113.5'))).status, path).toBe(429)
      }
      // Another address is served; so is a member of the db's account through the public method, and the private API.
      expect((await call('GET', '/svc/db/board/list', from('198.51.100.7'))).json).toEqual([expect.objectContaining({data: {title: 'hello'}})])
      for (let i = 0; i < 10; i++) expect((await call('GET', '/svc/db/board/list', {headers: {'x-forwarded-for': '203.0.113.5'}})).status).toBe(200)
      expect((await call('GET', '/svc/dbs.json', {headers: {'x-forwarded-for': '203.0.113.5'}})).status).toBe(200)
      // A user of another account is a visitor like any: refused from the spent address.
      expect((await call('GET', '/svc/db/board/list', {as: 'mallory', headers: {'x-forwarded-for': '203.0.113.5'}})).status).toBe(429)
    })

    it('counts an IPv6 client by its /64', async () => {
      const {call} = ctx()
      const {refused} = await readUntilRefused(() => call('GET', '/svc/db/board/list', from('2001:db8:1:2::1')), 8)
      expect(refused).toBeDefined()
      expect((await call('GET', '/svc/db/board/list', from('2001:db8:1:2:ffff:ffff:ffff:fffe'))).status).toBe(429)
      expect((await call('GET', '/svc/db/board/list', from('2001:db8:1:3::1'))).status).toBe(200)
    })

    it('leaves writes, unknown dbs and methods not enabled as they were', async () => {
      const {call} = ctx()
      await readUntilRefused(() => call('GET', '/svc/db/board/list', from('192.0.2.77')), 8)
      expect((await call('GET', '/svc/db/nope/list', from('192.0.2.77'))).status).toBe(404)
      expect((await call('GET', '/svc/db/wall/get?id=1', from('192.0.2.77'))).status).toBe(404)
    })
  })
})

describe('per visitor', () => {
  withWorld({public_read_ms_per_visitor: 3, public_read_ms_per_ip: OFF, public_read_ms_per_db: OFF}, (ctx) => {
    it('refuses a visitor (its signed cookie) past its budget while another visitor at the same address is served', async () => {
      const {call} = ctx()
      const first = await call('GET', '/svc/db/notes/list', from('203.0.113.9'))
      expect(first.status).toBe(200)
      const cookie = /(svc_visitor=[^;]+)/.exec(first.headers.get('set-cookie') ?? '')![1]!
      const {statuses, refused} = await readUntilRefused(() => call('GET', '/svc/db/board/list', from('203.0.113.9', {cookie})), 6)
      expect(refused, statuses.join(',')).toBeDefined()
      expect(refused!.json.error).toMatch(/^too many public reads by this visitor: they may take 3 ms of server time a minute; retry in \d+ s$/)
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      // Another visitor behind the same address (no cookie yet, then its own), and a forged cookie: served.
      const other = await call('GET', '/svc/db/notes/list', from('203.0.113.9'))
      expect(other.status).toBe(200)
      const otherCookie = /(svc_visitor=[^;]+)/.exec(other.headers.get('set-cookie') ?? '')![1]!
      expect((await call('GET', '/svc/db/board/list', from('203.0.113.9', {cookie: otherCookie}))).status).toBe(200)
      expect((await call('GET', '/svc/db/board/list', from('203.0.113.9', {cookie: 'svc_visitor=forged.sig'}))).status).toBe(200)
    })

    it('a user signed in to another account is one visitor wherever it reads from', async () => {
      const {call} = ctx()
      const {refused} = await readUntilRefused(() => call('GET', '/svc/db/board/list', {as: 'mallory', headers: {'x-forwarded-for': '198.51.100.1'}}), 6)
      expect(refused).toBeDefined()
      expect((await call('GET', '/svc/db/wall/list', {as: 'mallory', headers: {'x-forwarded-for': '198.51.100.2'}})).status).toBe(429)
    })
  })
})

describe('per database', () => {
  withWorld({public_read_ms_per_db: 5, public_read_ms_per_visitor: OFF, public_read_ms_per_ip: OFF}, (ctx) => {
    it('refuses every visitor of a db past its budget; other dbs are served', async () => {
      const {call} = ctx()
      let i = 0
      const {statuses, refused} = await readUntilRefused(() => call('GET', '/svc/db/board/list', from(`192.0.2.${++i}`)), 8)
      expect(refused, statuses.join(',')).toBeDefined()
      expect(refused!.json.error).toMatch(/^too many public reads of this database \(all its visitors together\)/)
      expect((await call('GET', '/svc/db/board/get?id=1', from('203.0.113.200'))).status).toBe(429)
      expect((await call('GET', '/svc/db/wall/list', from('203.0.113.200'))).status).toBe(200)
    })
  })
})

describe('the defaults', () => {
  withWorld({}, (ctx) => {
    it("let a real app's visitor read on: 100 reads in a row from one address", async () => {
      const {call} = ctx()
      for (let i = 0; i < 100; i++) {
        const r = await call('GET', i % 3 ? '/svc/db/board/list' : '/svc/db/board/search?q=hello', from('203.0.113.50'))
        expect(r.status, `read ${i}: ${r.text.slice(0, 200)}`).toBe(200)
      }
    })
  })
})

describe.runIf(pg)('across instances over one PostgreSQL database', () => {
  it("an address's budget spent through one instance is spent on the other", async () => {
    const world = await createWorld(SEED, {quotas: {public_read_ms_per_ip: 5, public_read_ms_per_visitor: OFF, public_read_ms_per_db: OFF}, trustProxy: true})
    const second = await world.reopen()
    try {
      const call = makeCall(world, inProcess(world.app))
      const callOther = makeCall(world, inProcess(createApp({...world.deps, store: second})))
      expect((await call('POST', '/svc/dbs.json', {body: {db: DBS[0]}})).status).toBe(201)
      const {refused} = await readUntilRefused(() => call('GET', '/svc/db/board/list', from('203.0.113.66')), 8)
      expect(refused).toBeDefined()
      const other = await callOther('GET', '/svc/db/board/list', from('203.0.113.66'))
      expect(other.status).toBe(429)
      expect(Number(other.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect((await callOther('GET', '/svc/db/board/list', from('203.0.113.67'))).status).toBe(200)
    } finally {
      await second.close()
      await world.close()
    }
  })
})

describe('svc serve', () => {
  it('takes the read budgets from SVC_QUOTA (comma-separated) as from --quota', async () => {
    const world = await createWorld(SEED)
    const server = await svcServe(world.dataDir, ['--quiet', ...(world.databaseUrl ? ['--database-url', world.databaseUrl] : [])],
      {env: {SVC_QUOTA: 'public_read_ms_per_ip=2,public_read_ms_per_db=1000000'}})
    try {
      const created = await fetch(`${server.url}/svc/dbs.json`, {method: 'POST', body: JSON.stringify({db: DBS[0]}),
        headers: {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'}})
      expect(created.status).toBe(201)
      const statuses: number[] = []
      let refused: Response | undefined
      for (let i = 0; i < 6 && !refused; i++) {
        const r = await fetch(`${server.url}/svc/db/board/list`)
        statuses.push(r.status)
        if (r.status === 429) refused = r
      }
      expect(refused, statuses.join(',')).toBeDefined()
      expect((await refused!.json()).error).toMatch(/they may take 2 ms of server time a minute/)
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    } finally {
      await server.stop()
      await world.close()
    }
  }, 120_000)
})
