/**
 * Flows on db changes (docs/flows.md "Flows on db changes"): triggers over HTTP (both transports),
 * one run per matching change with the change as its input, nothing for ops and tables not selected,
 * the egress policy, retries then an error run, and a restart that loses no change. Both stores.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {makeCall, type Ctx} from '../helpers/scenarios.js'
import {createWorld, DEFAULT_SEED, openTransport, TRANSPORTS, type World} from '../helpers/world.js'
import {createServices, type Services} from '../../src/services/index.js'
import {rawQuery} from '../helpers/pg.js'
import {startStub, weatherConnector, type Stub} from './stub.js'

const SEED = {...DEFAULT_SEED, users: [...DEFAULT_SEED.users!, {login: 'gus', role: 'guest' as const}]}
/** Short waits between attempts and a fast poll: the test waits on outcomes (expect.poll), never on times. */
const CHANGE_OPTIONS = {intervalMs: 100, retry: {attempts: 3, backoffMs: 20}}
const POLL = {timeout: 60_000, interval: 100}

/** A flow that posts the change to the stub (the outgoing webhook). */
const deliver = (code: string, connector = 'weather', method = 'echo') => ({
  kind: 'svc/custom_flow', code, fields: {program: [
    {type: 'connector', connector, method, params: {op: '{op}', record: '{record}', bookmark: '{bookmark}', table: '{table_name}', door: '{door}'}, into: 'answer'},
  ]},
})

interface Setup {
  multiId: number
  otherDbId: number
}

async function setUp(call: Ctx['call'], stub: Stub): Promise<Setup> {
  expect((await call('POST', '/svc/resources.json', {body: {resource: weatherConnector(stub.url)}})).status).toBe(201)
  // A connector to a private address the server's egress policy does not allow (the world allows 127.0.0.1 only).
  expect((await call('POST', '/svc/resources.json', {body: {resource: {
    kind: 'svc/custom_connector', code: 'intranet', url: 'http://10.255.255.1/hooks', fields: {methods: [{name: 'post', http_method: 'POST', path: '/x'}]},
  }}})).status).toBe(201)
  for (const flow of [deliver('deliver'), deliver('deliver_failing', 'weather', 'fail'), deliver('deliver_private', 'intranet', 'post')]) {
    expect((await call('POST', '/svc/resources.json', {body: {resource: flow}})).status).toBe(201)
  }
  const multi = await call('POST', '/svc/dbs.json', {body: {db: {name: 'Shop', code: 'shop', schema: {tables: {orders: {fields: {n: 'integer'}}, notes: {fields: {n: 'integer'}}}}}}})
  expect(multi.status).toBe(201)
  const other = await call('POST', '/svc/dbs.json', {body: {db: {name: 'Other', code: 'other-db'}}})
  expect(other.status).toBe(201)
  return {multiId: multi.json.id, otherDbId: other.json.id}
}

const runsOf = async (call: Ctx['call'], triggerId: number) =>
  (await call('GET', `/connect/flow_processes.json?db_trigger_id=${triggerId}&limit=100`)).json as any[]
/** Runs of a trigger once they all ended, oldest first. */
const endedRuns = async (call: Ctx['call'], triggerId: number, count: number) => {
  await expect.poll(async () => (await runsOf(call, triggerId)).filter((r) => r.status !== 'pending').length, POLL).toBeGreaterThanOrEqual(count)
  return (await runsOf(call, triggerId)).reverse()
}

for (const transportName of TRANSPORTS) {
  describe(`flows on db changes [${transportName}]`, {timeout: 180_000}, () => {
    let stub: Stub
    let world: World
    let ctx: Ctx
    let s: Setup
    let close: () => Promise<void>

    beforeAll(async () => {
      stub = await startStub()
      world = await createWorld(SEED, {changeTriggers: CHANGE_OPTIONS, flowLimits: {connectorTimeoutMs: 5000}})
      world.services.start()
      const transport = await openTransport(transportName, world.app)
      ctx = {world, transport, call: makeCall(world, transport)}
      close = async () => {
        await transport.close()
        await world.close()
      }
      s = await setUp(ctx.call, stub)
    })
    afterAll(async () => {
      await close?.()
      await stub?.close()
    })

    it('db triggers: create, list, read, change, delete; journaled; checked', async () => {
      const {call} = ctx
      const created = await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'shop', table_name: 'orders', ops: ['delete', 'create'], target_code: 'deliver'}}})
      expect(created.status, created.text).toBe(201)
      expect(created.json).toEqual({
        id: expect.any(Number), kind: 'flow', db_id: s.multiId, table_name: 'orders', ops: ['create', 'delete'], target_code: 'deliver', active: true,
        created_by_id: world.users.admin!.id, created_at: expect.any(String), updated_at: expect.any(String),
      })
      const id = created.json.id
      expect((await call('GET', '/account/db_triggers.json')).json).toEqual([created.json])
      expect((await call('GET', `/account/db_triggers/${id}.json`)).json).toEqual(created.json)
      // By id too; every op by default, every table by default.
      const byId = await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: s.otherDbId, target_code: 'deliver', active: false}}})
      expect(byId.status, byId.text).toBe(201)
      expect(byId.json).toMatchObject({db_id: s.otherDbId, table_name: null, ops: ['create', 'update', 'delete'], active: false})

      const patched = await call('PATCH', `/account/db_triggers/${id}.json`, {body: {db_trigger: {ops: ['update'], table_name: null}}})
      expect(patched.status, patched.text).toBe(200)
      expect(patched.json).toMatchObject({id, ops: ['update'], table_name: null, target_code: 'deliver', db_id: s.multiId})

      // Checked: one 422 names each bad member; a flow the account lacks; a db of another account is a 404, as an unknown one.
      const bad = await call('POST', '/account/db_triggers.json', {body: {db_trigger: {ops: ['upsert'], active: 'yes', color: 1, target_code: 'x y'}}})
      expect(bad.status).toBe(422)
      expect(bad.json).toMatchObject({db_id: ["can't be blank"], ops: [expect.stringMatching(/create, update, delete/)], active: ['must be true or false'],
        color: ['is not a known field'], target_code: ['must be a flow code']})
      const noFlow = await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'shop', target_code: 'nope'}}})
      expect(noFlow.status).toBe(422)
      expect(noFlow.json).toMatchObject({target_code: ['names no flow (svc/custom_flow) of this account']})
      expect((await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'nope', target_code: 'deliver'}}})).status).toBe(404)
      const noTable = await call('PATCH', `/account/db_triggers/${id}.json`, {body: {db_trigger: {table_name: 'nope'}}})
      expect(noTable.status).toBe(422)
      expect(noTable.json).toMatchObject({table_name: ['is not a table of this db (orders, notes)']})

      // Another account: its db is a 404 to us, our triggers are 404s to it, and it cannot reach our db.
      const theirs = await call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: {name: 'Theirs', code: 'theirs'}}})
      expect(theirs.status).toBe(201)
      expect((await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: theirs.json.id, target_code: 'deliver'}}})).status).toBe(404)
      expect((await call('POST', '/svc/resources.json', {as: 'mallory', body: {resource: deliver('deliver')}})).status).toBe(201)
      expect((await call('POST', '/account/db_triggers.json', {as: 'mallory', body: {db_trigger: {db_id: s.multiId, target_code: 'deliver'}}})).status).toBe(404)
      expect((await call('GET', `/account/db_triggers/${id}.json`, {as: 'mallory'})).status).toBe(404)
      expect((await call('PATCH', `/account/db_triggers/${id}.json`, {as: 'mallory', body: {db_trigger: {active: false}}})).status).toBe(404)
      expect((await call('DELETE', `/account/db_triggers/${id}.json`, {as: 'mallory'})).status).toBe(404)
      expect((await call('GET', '/account/db_triggers.json', {as: 'mallory'})).json).toEqual([])
      // Writers need what crons need; readers any signed-in user; nobody else.
      expect((await call('POST', '/account/db_triggers.json', {as: 'alice', body: {db_trigger: {db_id: 'shop', target_code: 'deliver'}}})).status).toBe(403)
      expect((await call('GET', '/account/db_triggers.json', {as: 'gus'})).status).toBe(200)
      expect((await call('GET', '/account/db_triggers.json', {as: null})).status).toBe(401)
      expect((await call('GET', '/account/db_triggers/abc.json')).status).toBe(404)

      expect((await call('DELETE', `/account/db_triggers/${id}.json`)).status).toBe(204)
      expect((await call('GET', `/account/db_triggers/${id}.json`)).status).toBe(404)
      expect((await call('DELETE', `/account/db_triggers/${byId.json.id}.json`)).status).toBe(204)

      // The journal holds each write (kind db_trigger), and a delete can be undone like any.
      const history = (await call('GET', `/svc/history.json?kind=db_trigger&id=${id}`)).json
      expect(history.map((e: any) => e.op)).toEqual(['delete', 'update', 'create'])
      const restored = await call('POST', `/svc/history/${history[0].bookmark}/restore.json`)
      expect(restored.status, restored.text).toBe(200)
      expect((await call('GET', `/account/db_triggers/${id}.json`)).json).toMatchObject({id, ops: ['update']})
      expect((await call('DELETE', `/account/db_triggers/${id}.json`)).status).toBe(204)
    })

    it('one run per selected change, with the change as input; nothing for other ops, tables and dbs', async () => {
      const {call} = ctx
      const t = (await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'shop', table_name: 'orders', ops: ['create', 'delete'], target_code: 'deliver'}}})).json
      const echoes = () => stub.requests.filter((r) => r.path === '/api/echo').length
      const before = echoes()
      const first = await call('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'orders', data: {n: 1}}}})
      expect(first.status).toBe(201)
      // Not selected: an update (op), a record of another table, a record of another db.
      expect((await call('PATCH', `/svc/dbs/shop/records/${first.json.id}.json`, {body: {record: {table_name: 'orders', data: {n: 2}}}})).status).toBe(200)
      expect((await call('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'notes', data: {n: 3}}}})).status).toBe(201)
      expect((await call('POST', '/svc/dbs/other-db/records.json', {body: {record: {data: {n: 4}}}})).status).toBe(201)
      expect((await call('DELETE', `/svc/dbs/shop/records/${first.json.id}.json`)).status).toBe(204)

      // The delete came last: once its run exists, every change before it was passed over.
      const runs = await endedRuns(call, t.id, 2)
      expect(runs).toHaveLength(2)
      expect(runs.map((r) => r.input.op)).toEqual(['create', 'delete'])
      const admin = world.users.admin!
      expect(runs[0]).toMatchObject({
        status: 'finished', trigger: 'db_change', db_trigger_id: t.id, flow_code: 'deliver',
        input: {
          kind: 'db_change', db_trigger_id: t.id, db_id: s.multiId, table_name: 'orders', op: 'create', record_id: first.json.id,
          record: {id: first.json.id, table_name: 'orders', data: {n: 1}}, bookmark: expect.stringMatching(/^\d{16}$/), door: 'api',
          actor: {type: 'user', id: String(admin.id), name: 'admin'},
        },
        output: {answer: {method: 'POST', body: {op: 'create', record: {id: first.json.id, data: {n: 1}}, table: 'orders', door: 'api'}}},
      })
      // A delete carries the last version of the record.
      expect(runs[1]!.input).toMatchObject({op: 'delete', record: {id: first.json.id, data: {n: 2}}})
      expect(runs[1]!.input.bookmark > runs[0]!.input.bookmark).toBe(true)
      // The bookmark is the change's place in the journal.
      const entry = await call('GET', `/svc/history/${runs[0]!.input.bookmark}.json`)
      expect(entry.json).toMatchObject({kind: 'record', id: String(first.json.id), op: 'create'})
      expect(echoes() - before).toBe(2)
      // Each call carries its run's id (a receiver dedupes on it: retries carry the same).
      const runIds = stub.requests.filter((r) => r.path === '/api/echo').slice(-2).map((r) => r.headers['x-svc-flow-run']).sort()
      expect(runIds).toEqual(runs.map((r) => r.id).sort())
      // Listed with the other runs, and filtered by trigger kind.
      const listed = (await call('GET', '/connect/flow_processes.json?trigger=db_change&limit=100')).json.map((r: any) => r.id)
      expect(listed).toEqual(expect.arrayContaining(runs.map((r) => r.id)))

      // Inactive: no run; active again: runs for changes from then on.
      expect((await call('PATCH', `/account/db_triggers/${t.id}.json`, {body: {db_trigger: {active: false}}})).status).toBe(200)
      expect((await call('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'orders', data: {n: 5}}}})).status).toBe(201)
      // Another trigger's run after that change shows the service has passed it.
      const probe = (await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'other-db', target_code: 'deliver'}}})).json
      expect((await call('POST', '/svc/dbs/other-db/records.json', {body: {record: {data: {n: 6}}}})).status).toBe(201)
      await endedRuns(call, probe.id, 1)
      expect(await runsOf(call, t.id)).toHaveLength(2)
      expect((await call('DELETE', `/account/db_triggers/${t.id}.json`)).status).toBe(204)
      expect((await call('DELETE', `/account/db_triggers/${probe.id}.json`)).status).toBe(204)
    })

    it('the connector call is refused by the egress policy (not retried): an error run', async () => {
      const {call} = ctx
      const t = (await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'shop', ops: ['create'], target_code: 'deliver_private'}}})).json
      expect((await call('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'notes', data: {n: 7}}}})).status).toBe(201)
      const [run] = await endedRuns(call, t.id, 1)
      expect(run).toMatchObject({status: 'error', error: expect.stringMatching(/^intranet\.post: 10\.255\.255\.1: .*allow-connector-hosts/)})
      expect(run.error).not.toMatch(/attempts/)
      expect((await call('DELETE', `/account/db_triggers/${t.id}.json`)).status).toBe(204)
    })

    it('a failing webhook is retried with backoff, then the run ends as an error', async () => {
      const {call} = ctx
      const t = (await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'shop', ops: ['create'], target_code: 'deliver_failing'}}})).json
      const fails = () => stub.requests.filter((r) => r.path.startsWith('/api/fail')).length
      const before = fails()
      expect((await call('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'notes', data: {n: 8}}}})).status).toBe(201)
      const [run] = await endedRuns(call, t.id, 1)
      expect(run).toMatchObject({status: 'error', error: expect.stringMatching(/^weather\.fail answered 503.*\(after 3 attempts\)$/)})
      // Three calls, the secret never in the run.
      expect(fails() - before).toBe(3)
      expect(JSON.stringify(run)).not.toContain('stub-secret')
      expect((await call('DELETE', `/account/db_triggers/${t.id}.json`)).status).toBe(204)
    })
  })
}

describe('a flow that writes to the db that triggers it', {timeout: 180_000}, () => {
  let world: World
  let ctx: Ctx
  let stub: Stub
  let close: () => Promise<void>

  beforeAll(async () => {
    stub = await startStub()
    world = await createWorld(SEED, {changeTriggers: CHANGE_OPTIONS})
    world.services.start()
    const transport = await openTransport('http', world.app)
    ctx = {world, transport, call: makeCall(world, transport)}
    close = async () => {
      await transport.close()
      await world.close()
    }
    await setUp(ctx.call, stub)
  })
  afterAll(async () => {
    await close?.()
    await stub?.close()
  })

  it('its own writes (door flow, actor the run) start no run: no loop', async () => {
    const {call} = ctx
    // A connector to this server itself, with a user's token as its secret: how a flow writes records.
    expect((await call('POST', '/svc/resources.json', {body: {resource: {
      kind: 'svc/custom_connector', code: 'self', url: `${ctx.transport.origin}/svc`, secret_token: world.users.admin!.token,
      fields: {methods: [{name: 'add', http_method: 'POST', path: '/dbs/shop/records.json'}]},
    }}})).status).toBe(201)
    expect((await call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: 'copy', fields: {program: [
      {type: 'connector', connector: 'self', method: 'add', params: {record: {table_name: 'orders', data: {n: '{record.data.n}'}}}, into: 'written'},
    ]}}}})).status).toBe(201)
    const t = (await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'shop', table_name: 'orders', ops: ['create'], target_code: 'copy'}}})).json
    expect((await call('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'orders', data: {n: 1}}}})).status).toBe(201)
    const [first] = await endedRuns(call, t.id, 1)
    expect(first).toMatchObject({status: 'finished', output: {written: {id: expect.any(Number), data: {n: 1}}}})
    // The copy is journaled as the run's write.
    const copy = (await call('GET', `/svc/history.json?kind=record&id=${first.output.written.id}&db=shop`)).json
    expect(copy).toEqual([expect.objectContaining({op: 'create', door: 'flow', actor: {type: 'flow', id: first.id, name: 'copy'}})])
    // A later change: its run exists only once the service read past the copy, which started nothing.
    expect((await call('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'orders', data: {n: 2}}}})).status).toBe(201)
    const runs = await endedRuns(call, t.id, 2)
    expect(runs.map((r) => r.input.record.data.n)).toEqual([1, 2])
    expect(runs.every((r) => r.input.door === 'api')).toBe(true)
    // The header alone, with a user's own token rather than a connector's secret, is an ordinary write.
    const forged = await call('POST', '/svc/dbs/shop/records.json', {as: 'alice', headers: {'x-svc-flow-run': first.id}, body: {record: {table_name: 'notes', data: {n: 3}}}})
    const forgedEntry = (await call('GET', `/svc/history.json?kind=record&id=${forged.json.id}&db=shop`, {as: 'alice'})).json
    expect(forgedEntry).toEqual([expect.objectContaining({door: 'api', actor: expect.objectContaining({type: 'user'})})])
  })

  it("a cron's run writing through a connector is journaled as the cron's (door flow, actor cron)", async () => {
    const {call} = ctx
    expect((await call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: 'stamp', fields: {program: [
      {type: 'connector', connector: 'self', method: 'add', params: {record: {table_name: 'notes', data: {n: 42}}}, into: 'written'},
    ]}}}})).status).toBe(201)
    const cron = (await call('POST', '/account/crons.json', {body: {cron: {kind: 'flow', target_code: 'stamp', schedule: '0 8 * * *', active: true}}})).json
    const now = await call('POST', `/account/crons/${cron.id}/run.json`)
    expect(now.status, now.text).toBe(201)
    let run = now.json
    await expect.poll(async () => (run = (await call('GET', `/connect/flow_processes/${now.json.id}.json`)).json).status, POLL).not.toBe('pending')
    expect(run).toMatchObject({status: 'finished', trigger: 'cron', output: {written: {id: expect.any(Number)}}})
    const entries = (await call('GET', `/svc/history.json?kind=record&id=${run.output.written.id}&db=shop`)).json
    expect(entries).toEqual([expect.objectContaining({op: 'create', door: 'flow', actor: {type: 'cron', id: String(cron.id), name: 'stamp'}})])
  })
})

describe('a burst of changes', {timeout: 180_000}, () => {
  let stub: Stub
  let world: World

  beforeAll(async () => {
    stub = await startStub()
    world = await createWorld(SEED, {changeTriggers: {...CHANGE_OPTIONS, maxInFlight: 2}})
    world.services.start()
  })
  afterAll(async () => {
    stub?.release()
    await world?.close()
    await stub?.close()
  })

  it('waits in the journal while the instance has its most runs under way; every change still gets its run', async () => {
    const call = makeCall(world, await openTransport('in-process', world.app))
    await setUp(call, stub)
    expect((await call('POST', '/svc/resources.json', {body: {resource: deliver('deliver_slow', 'weather', 'slow')}})).status).toBe(201)
    const t = (await call('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'other-db', target_code: 'deliver_slow'}}})).json
    for (let i = 0; i < 5; i++) expect((await call('POST', '/svc/dbs/other-db/records.json', {body: {record: {data: {n: i}}}})).status).toBe(201)
    // The stub holds every call to /api/slow: two runs are under way, the other changes wait.
    await expect.poll(async () => (await runsOf(call, t.id)).length, POLL).toBe(2)
    await stub.waitForRequest('/api/slow', 1)
    expect(stub.requests.filter((r) => r.path.startsWith('/api/slow'))).toHaveLength(2)
    // Released (again and again, as the next calls arrive): all five end.
    await expect.poll(async () => {
      stub.release()
      return (await runsOf(call, t.id)).filter((r) => r.status === 'finished').length
    }, POLL).toBe(5)
    expect(new Set((await runsOf(call, t.id)).map((r) => r.input.record.data.n))).toEqual(new Set([0, 1, 2, 3, 4]))
  })
})

describe('flows on db changes across instances and restarts', {timeout: 240_000}, () => {
  let stub: Stub
  let world: World
  const extra: {services: Services; close: () => Promise<void>}[] = []

  beforeAll(async () => {
    stub = await startStub()
    world = await createWorld(SEED, {changeTriggers: CHANGE_OPTIONS})
    world.services.start()
  })
  afterAll(async () => {
    for (const e of extra.reverse()) await e.close()
    await world?.close()
    await stub?.close()
  })

  /** Another instance over the same database (PostgreSQL: another pool; SQLite: another connection to the file), its services started. */
  const instance = async () => {
    const store = await world.reopen()
    const services = createServices(store, {allowConnectorHosts: ['127.0.0.1'], changeTriggers: CHANGE_OPTIONS})
    const {createApp} = await import('../../src/http/app.js')
    const app = createApp({...world.deps, store, services})
    services.start()
    const transport = await openTransport('in-process', app)
    const one = {services, call: makeCall({...world, store} as World, transport), close: async () => {
      await services.stop()
      await store.close()
    }}
    extra.push(one)
    return one
  }

  it('two instances writing at once: one run per change, none twice, none missed', async () => {
    const a = makeCall(world, await openTransport('in-process', world.app))
    const b = (await instance()).call
    await setUp(a, stub)
    const t = (await a('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'shop', table_name: 'orders', target_code: 'deliver'}}})).json
    const writes = 30
    const made = await Promise.all(Array.from({length: writes}, (_, i) =>
      (i % 2 ? a : b)('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'orders', data: {n: i}}}})))
    expect(made.map((r) => r.status)).toEqual(Array(writes).fill(201))
    // One more write after the burst, then wait for its run: every run of the burst is recorded by then.
    const last = await b('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'orders', data: {n: writes}}}})
    await expect.poll(async () => (await runsOf(a, t.id)).some((r) => r.input.record_id === last.json.id), POLL).toBe(true)
    await expect.poll(async () => (await runsOf(a, t.id)).filter((r) => r.status !== 'pending').length, POLL).toBe(writes + 1)
    const runs = await runsOf(a, t.id)
    expect(runs).toHaveLength(writes + 1)
    expect(new Set(runs.map((r) => r.input.bookmark)).size).toBe(writes + 1)
    expect(new Set(runs.map((r) => r.input.record_id))).toEqual(new Set([...made.map((r) => r.json.id), last.json.id]))
    expect(runs.every((r) => r.status === 'finished')).toBe(true)
    const delivered = stub.requests.filter((r) => r.path === '/api/echo').map((r) => JSON.parse(r.body).bookmark)
    expect(new Set(delivered).size).toBe(delivered.length)
    expect(delivered.length).toBe(writes + 1)
  })

  it('changes made while no service runs start their runs when one starts again', async () => {
    const a = makeCall(world, await openTransport('in-process', world.app))
    const t = (await a('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'shop', table_name: 'notes', ops: ['create'], target_code: 'deliver'}}})).json
    // Every instance's change service stops (the servers down), the writes go on (the embedded CLI, say).
    await world.services.changeTriggers!.stop()
    for (const e of extra) await e.services.changeTriggers!.stop()
    const ids: number[] = []
    for (let i = 0; i < 3; i++) ids.push((await a('POST', '/svc/dbs/shop/records.json', {body: {record: {table_name: 'notes', data: {n: i}}}})).json.id)
    expect(await runsOf(a, t.id)).toEqual([])
    // A restarted server.
    const restarted = await instance()
    await expect.poll(async () => (await runsOf(restarted.call, t.id)).filter((r) => r.status === 'finished').length, POLL).toBe(3)
    expect((await runsOf(restarted.call, t.id)).map((r) => r.input.record_id).sort()).toEqual([...ids].sort())
  })

  it('a cursor past the journal (a store restored to an earlier time) comes back to the head at start', async () => {
    const a = makeCall(world, await openTransport('in-process', world.app))
    for (const e of extra) await e.services.changeTriggers!.stop()
    await rawQuery(world, "UPDATE change_cursor SET pos = pos + 1000 WHERE name = 'db_triggers'")
    const t = (await a('POST', '/account/db_triggers.json', {body: {db_trigger: {db_id: 'other-db', ops: ['create'], target_code: 'deliver'}}})).json
    const restarted = await instance()
    const made = await restarted.call('POST', '/svc/dbs/other-db/records.json', {body: {record: {data: {n: 1}}}})
    expect(made.status).toBe(201)
    await expect.poll(async () => (await runsOf(restarted.call, t.id)).map((r) => r.input.record_id), POLL).toEqual([made.json.id])
  })

  it('a (trigger, change) claimed already is left out of a later claim, without an error', async () => {
    const {randomUUID} = await import('node:crypto')
    const flows = world.store.flows
    const row = {accountId: world.accounts.acme!, flowId: null, flowCode: 'x', trigger: 'db_change' as const, dbTriggerId: 999_999, changePos: 1, input: {}, runner: 'test'}
    const at = await flows.changeCursor()
    expect(await flows.claimChanges(at, at, [{...row, id: randomUUID()}])).toBe(true)
    expect(await flows.claimChanges(at, at, [{...row, id: randomUUID()}, {...row, changePos: 2, id: randomUUID()}])).toBe(true)
    const runs = await flows.listProcesses(world.accounts.acme!, {db_trigger_id: 999_999, limit: 10, offset: 0})
    expect(runs.map((r) => r.input)).toHaveLength(2)
    // A claim from a cursor that moved meanwhile writes nothing.
    expect(await flows.claimChanges(at - 1, at, [{...row, changePos: 3, id: randomUUID()}])).toBe(false)
    expect(await flows.listProcesses(world.accounts.acme!, {db_trigger_id: 999_999, limit: 10, offset: 0})).toHaveLength(2)
  })
})
