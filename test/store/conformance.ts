// The store's conformance scenarios, written once and run against every driver (unstorage's
// testDriver pattern): test/store/drivers.test.ts calls describeStore() for SQLite always and for
// PostgreSQL when a test cluster is there (SVC_TEST_DATABASE_URL). A driver passes when every
// repository answers the same through the Store interface, whatever SQL dialect is under it.
import {randomBytes, randomUUID} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {AppBuild, AppData} from '../../src/core/apps/types.js'
import type {DbInput} from '../../src/core/dbs/db.js'
import {buildQuery} from '../../src/core/dbs/query.js'
import {indexValues} from '../../src/core/dbs/records.js'
import {planSchema, tablePlan} from '../../src/core/dbs/schema.js'
import {CONNECTOR_KIND} from '../../src/core/flows/resources.js'
import type {PromptData, Viewer} from '../../src/core/prompts/types.js'
import type {Store} from '../../src/store/index.js'
import {USAGE_SLICE} from '../../src/store/dbs/repo.js'

export interface StoreDriver {
  /** Opens a fresh store; `close` also removes what it made. */
  open(): Promise<{store: Store; close(): Promise<void>}>
}

const unique = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`
const build = (hash = unique('h')): AppBuild => ({hash, app_code: 'js', css_code: 'css', app_build_time: 1, css_build_time: 2})
const app = (urlCode: string, name = 'App'): AppData => ({
  name, url_code: urlCode, description: '', app_engine: 'html', css_engine: 'none', source_code: '<p>hi</p>', public: false, active: true,
  db_code: null, show_in_module: null, prompt: null, actions: [], fields: {}, config: {},
})
const prompt = (code: string, over: Partial<PromptData> = {}): PromptData =>
  ({name: code, code, content: 'Hello', kind: 'chat', scope: 'account', scopeId: null, fields: {}, ...over})

export function describeStore(name: string, driver: StoreDriver): void {
  describe(`the store on ${name}`, () => {
    let store: Store
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({store, close} = await driver.open())
    })
    afterAll(() => close?.())

    /** A new account with an admin: scenarios never see each other's rows. */
    const account = async (teams: string[] = []) => {
      const a = await store.accounts.createAccount(unique('acct'))
      const admin = await store.accounts.addUser({accountId: a.id, login: 'admin', role: 'admin', teams})
      return {id: a.id, admin}
    }

    it('accounts: teams, groups and a department by name (made once per account), a principal with ordered ids', async () => {
      const a = await account()
      const u = await store.accounts.addUser({accountId: a.id, login: 'bo', teams: ['red', 'blue', 'red'], groups: ['g'], department: 'north'})
      const v = await store.accounts.addUser({accountId: a.id, login: 'cy', teams: ['blue'], department: 'north'})
      expect(u.team_names).toEqual(['red', 'blue'])
      expect(v.team_ids).toEqual([u.team_ids[1]])
      expect(v.department_ids).toEqual(u.department_ids)
      const p = await store.accounts.principal(u.id)
      expect(p).toMatchObject({login: 'bo', teamIds: [...u.team_ids].sort((x, y) => x - y), groupIds: u.group_ids, departmentIds: u.department_ids})
      expect((await store.accounts.principal(a.admin.id))?.teamIds).toEqual([])
      await expect(store.accounts.addUser({accountId: a.id, login: 'bo'})).rejects.toMatchObject({status: 422, details: {login: ['has already been taken']}})
      expect((await store.accounts.listUsers(a.id)).map((x) => x.login)).toEqual(['admin', 'bo', 'cy'])
      expect((await store.accounts.defaultUser(a.id))?.login).toBe('admin')
    })

    it('accounts: tokens are minted for a known user only, authenticate by kind, and are replaced together', async () => {
      const a = await account()
      await expect(store.accounts.createToken(2 ** 53)).rejects.toMatchObject({status: 404})
      const api = await store.accounts.createToken(a.admin.id)
      const readOnly = await store.accounts.createToken(a.admin.id, 'api:read')
      expect((await store.accounts.authenticate(api))?.id).toBe(a.admin.id)
      expect(await store.accounts.authenticate(api, 'session')).toBeNull()
      const {token, revoked} = await store.accounts.replaceApiTokens(a.admin.id)
      expect(revoked).toBe(2)
      expect(await store.accounts.authenticate(api)).toBeNull()
      expect(await store.accounts.authenticate(readOnly, 'api:read')).toBeNull()
      expect((await store.accounts.authenticate(token))?.login).toBe('admin')
      await store.accounts.revokeToken(token)
      expect(await store.accounts.authenticate(token)).toBeNull()
    })

    it('accounts: module changes read-modify-write without losing one; a secret is made once', async () => {
      const a = await account()
      await Promise.all(['crm', 'cms', 'kb', 'mail'].map((m) => store.accounts.changeModule(a.id, 'add', m)))
      expect((await store.accounts.getAccount(a.id))?.settings.modules.sort()).toEqual(['cms', 'crm', 'kb', 'mail'])
      expect(await store.accounts.changeModule(a.id, 'remove', 'kb')).not.toContain('kb')
      await expect(store.accounts.setModules(2 ** 31, [])).rejects.toMatchObject({status: 404})
      const name = unique('secret')
      const [s1, s2] = await Promise.all([store.accounts.secret(name), store.accounts.secret(name)])
      expect(s1).toBe(s2)
      expect(await store.accounts.secret(name)).toBe(s1)
    })

    it('prompts: what a viewer sees by scope, ASCII-only case folding in search and name order, codes unique per scope', async () => {
      const a = await account(['t'])
      const teamId = a.admin.team_ids[0]!
      const other = await store.accounts.addUser({accountId: a.id, login: 'other'})
      await store.prompts.create(a.id, a.admin.id, prompt('b-acct', {name: 'Beta'}))
      await store.prompts.create(a.id, a.admin.id, prompt('a-team', {name: 'alpha', scope: 'team', scopeId: teamId}))
      await store.prompts.create(a.id, a.admin.id, prompt('c-user', {name: 'ÄRGER', scope: 'user', scopeId: other.id}))
      const me: Viewer = {accountId: a.id, userId: a.admin.id, teamIds: [teamId], departmentIds: []}
      const them: Viewer = {accountId: a.id, userId: other.id, teamIds: [], departmentIds: []}
      const codes = async (v: Viewer, filters: Partial<Parameters<Store['prompts']['list']>[1]> = {}) =>
        (await store.prompts.list(v, {orderBy: 'name', desc: false, ...filters})).map((p) => p.code)
      expect(await codes(me)).toEqual(['a-team', 'b-acct']) // alpha before Beta: the order folds ASCII case
      expect(await codes(me, {desc: true})).toEqual(['b-acct', 'a-team'])
      expect((await codes(them)).sort()).toEqual(['b-acct', 'c-user'])
      expect(await codes(me, {q: 'ALP'})).toEqual(['a-team'])
      expect(await codes(them, {q: 'är'})).toEqual([]) // only ASCII letters fold
      expect(await codes(me, {q: '_'})).toEqual([]) // LIKE wildcards are literal
      expect(await codes(me, {q: '-'})).toEqual(['a-team', 'b-acct'])
      expect((await store.prompts.byCodes(me, ['a-team', 'c-user', 'nope'])).map((p) => p.code)).toEqual(['a-team'])
      await expect(store.prompts.create(a.id, a.admin.id, prompt('b-acct'))).rejects.toMatchObject({status: 422, details: {code: ['has already been taken']}})
      await store.prompts.create(a.id, a.admin.id, prompt('b-acct', {scope: 'user', scopeId: a.admin.id})) // another scope: free
      const [first] = await store.prompts.list(me, {code: 'a-team', orderBy: 'id', desc: false})
      expect(await store.prompts.update(a.id, first!.id, prompt('a-team', {name: 'Renamed'}))).toMatchObject({name: 'Renamed', scope: 'account'})
      expect(await store.prompts.delete(a.id, first!.id)).toBe(true)
      expect(await store.prompts.get(me, first!.id)).toBeNull()
    })

    it('dashboards: one company default per context, selections that fall back when their dashboard goes', async () => {
      const a = await account()
      const u = a.admin.id
      const one = await store.dashboards.create(a.id, u, {name: 'one', context: 'main', layout: [], shared: true, is_default: true})
      const two = await store.dashboards.create(a.id, u, {name: 'two', context: 'main', layout: [], shared: true, is_default: true})
      expect((await store.dashboards.get(a.id, one.id))?.is_default).toBe(false)
      expect((await store.dashboards.companyDefault(a.id, 'main'))?.id).toBe(two.id)
      expect(await store.dashboards.getSelection(a.id, u, 'main')).toEqual({kind: 'dashboard', id: two.id})
      const other = await store.accounts.addUser({accountId: a.id, login: 'x'})
      const mine = await store.dashboards.create(a.id, other.id, {name: 'mine', context: 'main', layout: [], shared: false, is_default: false})
      expect(await store.dashboards.setSelection(a.id, u, 'main', {kind: 'dashboard', id: mine.id})).toBe(false)
      expect(await store.dashboards.setSelection(a.id, u, 'main', {kind: 'builtin'})).toBe(true)
      expect(await store.dashboards.getSelection(a.id, u, 'main')).toEqual({kind: 'builtin'})
      expect(await store.dashboards.update(a.id, one.id, {is_default: true})).toMatchObject({is_default: true})
      expect((await store.dashboards.companyDefault(a.id, 'main'))?.id).toBe(one.id)
      expect(await store.dashboards.setSelection(a.id, other.id, 'main', {kind: 'dashboard', id: mine.id})).toBe(true)
      expect(await store.dashboards.delete(a.id, mine.id)).toBe(true)
      expect(await store.dashboards.getSelection(a.id, other.id, 'main')).toEqual({kind: 'default'})
      expect((await store.dashboards.listVisible(a.id, other.id)).map((d) => d.name)).toEqual(['one', 'two'])
    })

    it('apps: url_codes unique server-wide, a missing app is a 404 before a taken code, builds cached once', async () => {
      const a = await account()
      const b = await account()
      const code = unique('app')
      const created = await store.apps.create(a.id, a.admin.id, app(code, 'Zed'), build())
      await expect(store.apps.create(b.id, b.admin.id, app(code), build())).rejects.toMatchObject({status: 422, details: {url_code: ['has already been taken']}})
      await expect(store.apps.update(b.id, created.id, b.admin.id, app(code), build())).rejects.toMatchObject({status: 404})
      await expect(store.apps.update(a.id, randomUUID(), a.admin.id, app(code), build())).rejects.toMatchObject({status: 404})
      const second = await store.apps.create(a.id, a.admin.id, app(unique('app'), 'alpha'), build())
      await expect(store.apps.update(a.id, second.id, a.admin.id, app(code), build())).rejects.toMatchObject({status: 422})
      expect((await store.apps.list(a.id, {q: 'ZE'})).map((x) => x.id)).toEqual([created.id])
      expect(await store.apps.urlCodeTaken(b.id, code)).toBe(true)
      expect(await store.apps.urlCodeTaken(a.id, code, created.id)).toBe(false)
      const cached = build()
      await store.apps.saveBuild(cached)
      await store.apps.saveBuild({...cached, app_code: 'other'})
      expect(await store.apps.cachedBuild(cached.hash)).toEqual(cached)
      expect(await store.apps.delete(a.id, created.id)).toBe(true)
      expect(await store.apps.getById(created.id)).toBeNull()
    })

    it('flows: connector codes unique server-wide, crons under a quota, a run finished once, interrupted and pruned runs', async () => {
      const a = await account()
      const b = await account()
      const code = unique('conn')
      const connector = {kind: CONNECTOR_KIND, code, name: 'C', url: 'https://example.com', fields: {}} as const
      const r = await store.flows.createResource(a.id, a.admin.id, connector)
      await expect(store.flows.createResource(b.id, b.admin.id, connector)).rejects.toMatchObject({status: 422})
      expect((await store.flows.findConnector(code))?.accountId).toBe(a.id)
      expect((await store.flows.listResources(a.id, {q: code.toUpperCase()})).map((x) => x.id)).toEqual([r.id])
      expect(await store.flows.updateResource(a.id, r.id, {...connector, name: 'D', secret_token: 'x'.repeat(40)})).toMatchObject({name: 'D'})
      expect(await store.flows.resourceSecret(a.id, r.id)).toBe('x'.repeat(40))

      const cron = {kind: 'flow', target_code: 'f', schedule: '* * * * *', timezone: null, active: true} as const
      const made = await Promise.allSettled(Array.from({length: 5}, () => store.flows.createCron(a.id, a.admin.id, cron, null, 3)))
      expect(made.filter((m) => m.status === 'fulfilled')).toHaveLength(3)
      expect(made.filter((m) => m.status === 'rejected').map((m) => (m as PromiseRejectedResult).reason.status)).toEqual([422, 422])

      const run = (id?: string) => store.flows.createProcess({id, accountId: a.id, flowId: null, flowCode: 'f', trigger: 'manual', input: {}, runner: 'h:1'})
      const p = await run()
      const done = {status: 'success', output: {ok: true}, error: null, steps: 1} as const
      const [x, y] = await Promise.all([store.flows.finishProcess(a.id, p.id, done), store.flows.finishProcess(a.id, p.id, {...done, status: 'error'})])
      expect(x?.status).toBe(y?.status)
      const pending = await Promise.all([run(), run()])
      expect(await store.flows.interruptProcesses(pending.map((q) => q.id), 'stopped')).toBe(2)
      const after = await store.flows.getProcess(a.id, pending[0]!.id)
      expect(after).toMatchObject({status: 'error', error: 'stopped'})
      expect(await store.flows.pruneProcesses(1)).toBeGreaterThanOrEqual(2)
      expect(await store.flows.listProcesses(a.id, {limit: 10, offset: 0} as never)).toHaveLength(1)
    })

    const dbInput = (code: string | null, schema: DbInput['schema'] = null, over: Partial<DbInput> = {}): DbInput =>
      ({name: 'D', code, app_id: null, schema, public_methods: {}, fields: {}, ...over})

    it('dbs: codes are unique per account and among public dbs; If-Match sees the stored db inside the write', async () => {
      const a = await account()
      const b = await account()
      const code = unique('db')
      const d = await store.dbs.create(a.id, dbInput(code))
      await expect(store.dbs.create(a.id, dbInput(code))).rejects.toMatchObject({status: 422, details: {code: ['has already been taken']}})
      await store.dbs.create(b.id, dbInput(code)) // another account's private db may share it
      const pub = unique('pub')
      await store.dbs.create(a.id, dbInput(pub, null, {public_methods: {create: true}}))
      await expect(store.dbs.create(b.id, dbInput(pub, null, {public_methods: {create: true}}))).rejects.toMatchObject({status: 422})
      expect((await store.dbs.findByCode(pub))?.account_id).toBe(a.id)
      expect(await store.dbs.get(a.id, code, {count: false})).toMatchObject({id: d.id, records_count: -1})
      const stale = new Error('stale')
      await expect(store.dbs.update(a.id, d.id, dbInput(code, null, {name: 'E'}), undefined, (current) => {
        expect(current.name).toBe('D')
        throw stale
      })).rejects.toBe(stale)
      expect((await store.dbs.get(a.id, String(d.id)))?.name).toBe('D')
      expect(await store.dbs.get(a.id, String(2 ** 64))).toBeNull()
      expect(await store.dbs.update(a.id, 2 ** 53, dbInput(null))).toBeNull()
      expect(await store.dbs.delete(b.id, d.id)).toBe(false)
      // A delete's If-Match check sees the db as stored at the delete (changed after the caller read it), and a throw keeps it.
      await store.dbs.createRecord(a.id, d.id, {tableName: null, data: {x: 1} as never, index: {}})
      await store.dbs.update(a.id, d.id, dbInput(code, null, {name: 'Theirs'}))
      await expect(store.dbs.delete(a.id, d.id, (current) => {
        expect(current).toMatchObject({id: d.id, name: 'Theirs'})
        throw stale
      })).rejects.toBe(stale)
      expect(await store.dbs.get(a.id, String(d.id))).toMatchObject({name: 'Theirs', records_count: 1})
      const seen: string[] = []
      expect(await store.dbs.delete(a.id, d.id, (current) => void seen.push(current.name))).toBe(true)
      expect(seen).toEqual(['Theirs'])
      expect(await store.dbs.delete(a.id, d.id, () => seen.push('gone'))).toBe(false) // no db: the check never runs
      expect(seen).toEqual(['Theirs'])
      expect(await store.dbs.list(a.id)).toHaveLength(1)
    })

    it('dbs: a schema change rebuilds the index columns of every record, page after page, of that db only', async () => {
      const a = await account()
      const before = {fields: {name: 'string', n: 'integer'}}
      const after = {fields: {name: 'string', n: 'integer'}, indexed_fields: ['n', 'name']}
      const table = tablePlan(planSchema(after), null)
      const d = await store.dbs.create(a.id, dbInput(unique('big'), before))
      const other = await store.dbs.create(a.id, dbInput(unique('other'), before))
      const write = (i: number) => ({tableName: null, data: {name: `r${i}`, n: i % 7}, index: {}})
      expect(await store.dbs.createRecords(a.id, d.id, Array.from({length: 2345}, (_, i) => write(i)))).toBe(2345)
      await store.dbs.createRecord(a.id, other.id, write(3))
      await store.dbs.update(a.id, d.id, dbInput(d.code, after), true)
      const spec = (filters: Record<string, string>) => ({...buildQuery({filters, sort: 'id'}, table, true), limit: 1000, tableName: null})
      const sevens = await store.dbs.query(a.id, d.id, spec({n: '3'}))
      expect(sevens).toHaveLength(335) // 3, 10, ... 2341: across the three pages of the rebuild, oldest first
      expect(sevens.at(-1)?.data).toEqual({name: 'r2341', n: 3})
      expect((await store.dbs.query(a.id, d.id, spec({name: 'r2344'}))).map((r) => r.data.n)).toEqual([2344 % 7])
      // The other db kept its old schema: its records' columns were not rebuilt, so a query by the new plan (which reads the column) finds none.
      expect(await store.dbs.query(a.id, other.id, spec({n: '3'}))).toEqual([])
    })

    it('dbs: usage counts a large table a slice at a time, and other work runs between the slices', async () => {
      const a = await account()
      const d = await store.dbs.create(a.id, dbInput(unique('big')))
      const n = USAGE_SLICE * 2 + 5
      await store.dbs.createRecords(a.id, d.id, Array.from({length: n}, (_, i) => ({tableName: null, data: (i % 3 ? {x: i} : {y: i}) as never, index: {}})))
      let settled = false
      const usage = store.dbs.usage(a.id, d.id, new Map([[null, ['x', 'y', 'z']]])).finally(() => (settled = true))
      // The next turn of the event loop comes before the count is done: the server answers others meanwhile.
      expect(await new Promise((resolve) => setImmediate(() => resolve(settled)))).toBe(false)
      const x = Array.from({length: n}, (_, i) => i).filter((i) => i % 3).length
      expect(await usage).toEqual([{table_name: null, records_count: n, fields: {x, y: n - x, z: 0}}])
    })

    it('dbs: records of a db deleted meanwhile, a full public db, scoped reads and deletes, usage by field', async () => {
      const a = await account()
      const d = await store.dbs.create(a.id, dbInput(unique('rec'), {tables: {t: {fields: {owner: 'string', x: 'integer'}}}}))
      const gone = await store.dbs.create(a.id, dbInput(unique('gone')))
      await store.dbs.delete(a.id, gone.id)
      const rec = (data: Record<string, unknown>, tableName: string | null = 't') => ({tableName, data: data as never, index: {}})
      const noLongerExists = {status: 422, details: {db: ['no longer exists']}}
      await expect(store.dbs.createRecord(a.id, gone.id, rec({x: 1}, null))).rejects.toMatchObject(noLongerExists)
      await expect(store.dbs.createRecord(a.id, gone.id, rec({x: 1}, null), 10)).rejects.toMatchObject(noLongerExists)
      await expect(store.dbs.createRecords(a.id, gone.id, [rec({x: 1}, null)])).rejects.toMatchObject(noLongerExists)

      const mine = await store.dbs.createRecord(a.id, d.id, rec({owner: 'v1', x: 1}), 3)
      const number = await store.dbs.createRecord(a.id, d.id, rec({owner: 5, x: null}), 3)
      await store.dbs.createRecord(a.id, d.id, rec({x: 2}), 3)
      await expect(store.dbs.createRecord(a.id, d.id, rec({x: 3}), 3)).rejects.toMatchObject({status: 403})

      expect(await store.dbs.getRecord(a.id, d.id, mine.id, {field: 'owner', value: 'v1'})).toMatchObject({id: mine.id, table_name: 't'})
      expect(await store.dbs.getRecord(a.id, d.id, mine.id, {field: 'owner', value: 'v2'})).toBeNull()
      expect(await store.dbs.getRecord(a.id, d.id, number.id, {field: 'owner', value: '5'})).toBeNull() // a number is not the string
      expect(await store.dbs.getRecord(a.id, d.id, mine.id, {field: 'owner', value: ''})).toBeNull()
      expect(await store.dbs.getRecord(a.id, d.id, 2 ** 53)).toBeNull()
      expect(await store.dbs.updateRecord(a.id, d.id, mine.id, () => rec({owner: 'v1', x: 9}), {field: 'owner', value: 'v2'})).toBeNull()
      expect(await store.dbs.updateRecord(a.id, d.id, mine.id, (old) => rec({...old.data, x: 10}), {field: 'owner', value: 'v1'}))
        .toMatchObject({data: {owner: 'v1', x: 10}})

      expect(await store.dbs.usage(a.id, d.id, new Map([['t', ['owner', 'x', 'y']]]))).toEqual([
        {table_name: 't', records_count: 3, fields: {owner: 2, x: 2, y: 0}}, // x: null is not counted, nor a missing field
      ])

      expect(await store.dbs.deleteRecord(a.id, d.id, number.id, {field: 'owner', value: '5'})).toBe(false)
      const refused = new Error('refused')
      await expect(store.dbs.deleteRecord(a.id, d.id, mine.id, undefined, () => {
        throw refused
      })).rejects.toBe(refused)
      expect(await store.dbs.deleteRecord(a.id, d.id, mine.id, {field: 'owner', value: 'v1'})).toBe(true)
      expect(await store.dbs.deleteRecord(a.id, d.id, mine.id)).toBe(false)
      expect(await store.dbs.deleteRecord(a.id, d.id, number.id, undefined, (r) => expect(r.data.owner).toBe(5))).toBe(true)
      expect(await store.dbs.getRecord(a.id, d.id, number.id)).toBeNull()
    })
  })
}
