import {Hono} from 'hono'
import {applyReplace, parseDbReplace, validateDbInput, type DbInput} from '../../core/dbs/db.js'
import {buildQuery, filtersFromQuery, searchTable, type QueryInput} from '../../core/dbs/query.js'
import {checkRecordSize, dataObject, indexValues, recordTable, validateData} from '../../core/dbs/records.js'
import {quotasOf} from '../../core/quotas.js'
import {planSchema} from '../../core/dbs/schema.js'
import {badRequest, FieldErrorBag, notFound} from '../../core/errors.js'
import type {DbView, RecordView, RecordWrite} from '../../store/dbs/types.js'
import type {AppEnv, Deps} from '../env.js'
import {requireCan, requireUser} from '../middleware/auth.js'
import {envelope, jsonObject} from '../middleware/body.js'
import {publicDbRoutes} from './dbs/public.js'
import {flatQuery, indexerFor, loadDb, recordId, type LoadedDb} from './dbs/shared.js'

export const IMPORT_BATCH_MAX = 1000

const asInput = (db: DbView): DbInput => ({
  name: db.name, code: db.code, app_id: db.app_id, schema: db.schema,
  public_methods: db.public_methods as DbInput['public_methods'], fields: db.fields,
})

const queryInput = (q: Record<string, string>): QueryInput => ({
  q: q.q, search_in: q.search_in, sort: q.sort, fields: q.fields, limit: q.limit, offset: q.offset, after_id: q.after_id,
  filters: filtersFromQuery(q),
})

/** A record write for `table` of a loaded db: table rules, type conversion, index values. */
function recordWrite(loaded: LoadedDb, rawTable: unknown, data: Record<string, unknown>, mode: 'create' | 'update', maxBytes: number): RecordWrite {
  const {tableName, table} = recordTable(loaded.plan, rawTable, mode)
  const converted = validateData(table, data)
  checkRecordSize(converted, maxBytes)
  return {tableName, data: converted, index: indexValues(table, converted)}
}

/** Flat search shape: user fields at the top level, then id, created_at, updated_at. */
function flat(record: RecordView, fields?: string[]): Record<string, unknown> {
  const data = fields ? Object.fromEntries(fields.filter((f) => f in record.data).map((f) => [f, record.data[f]])) : record.data
  return {...data, id: record.id, created_at: record.created_at, updated_at: record.updated_at}
}

/** Routes of the dbs area: private CRUD, records, search, replace, usage, import; public methods. */
export function dbsRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  app.route('/', publicDbRoutes(deps))
  const quotas = quotasOf(deps.quotas)

  const priv = new Hono<AppEnv>()
  // No router-wide middleware: mounted at '/', it would guard every route of the app. Each handler calls requireUser.

  priv.get('/svc/dbs.json', async (c) => c.json(await deps.store.dbs.list(requireUser(c).accountId)))

  priv.post('/svc/dbs.json', async (c) => {
    const user = requireCan(c, 'db.manage')
    const input = validateDbInput(envelope(await jsonObject(c), 'db'))
    return c.json(await deps.store.dbs.create(user.accountId, input), 201)
  })

  priv.get('/svc/dbs/:id{[^/]+\\.json}', async (c) => {
    const {db} = await loadDb(deps, requireUser(c).accountId, c.req.param('id'), true)
    return c.json(db)
  })

  const save = async (loaded: LoadedDb, next: DbInput) => {
    const schemaChanged = JSON.stringify(next.schema) !== JSON.stringify(loaded.db.schema)
    const reindex = schemaChanged ? indexerFor(planSchema(next.schema)) : undefined
    const db = await deps.store.dbs.update(loaded.accountId, loaded.db.id, next, reindex)
    if (!db) throw notFound('database not found')
    return db
  }

  priv.patch('/svc/dbs/:id{[^/]+\\.json}', async (c) => {
    const loaded = await loadDb(deps, requireCan(c, 'db.manage').accountId, c.req.param('id'))
    const next = validateDbInput(envelope(await jsonObject(c), 'db'), asInput(loaded.db))
    return c.json(await save(loaded, next))
  })

  priv.delete('/svc/dbs/:id{[^/]+\\.json}', async (c) => {
    const loaded = await loadDb(deps, requireCan(c, 'db.manage').accountId, c.req.param('id'))
    await deps.store.dbs.delete(loaded.accountId, loaded.db.id)
    return c.body(null, 204)
  })

  priv.patch('/svc/dbs/:id/replace.json', async (c) => {
    const loaded = await loadDb(deps, requireCan(c, 'db.manage').accountId, c.req.param('id'))
    const body = await jsonObject(c)
    const request = parseDbReplace(body)
    const current = request.field === 'schema' ? loaded.db.schema : loaded.db[request.field]
    const value = applyReplace(current, request)
    const next = validateDbInput({[request.field]: value}, asInput(loaded.db))
    return c.json(await save(loaded, next))
  })

  /** Record counts per table and per schema field (non-null values): what `svc db push` checks before dropping. */
  priv.get('/svc/dbs/:id/usage.json', async (c) => {
    const loaded = await loadDb(deps, requireUser(c).accountId, c.req.param('id'))
    const byTable = new Map<string | null, string[]>()
    for (const [key, t] of loaded.plan.tables) byTable.set(loaded.plan.multi ? key : null, Object.keys(t.fields))
    const tables = await deps.store.dbs.usage(loaded.accountId, loaded.db.id, byTable)
    return c.json({id: loaded.db.id, records_count: tables.reduce((n, t) => n + t.records_count, 0), tables})
  })

  priv.get('/svc/dbs/:db_id/records.json', async (c) => {
    const loaded = await loadDb(deps, requireUser(c).accountId, c.req.param('db_id'))
    const q = flatQuery(c)
    let tableName: string | null | undefined
    let table = loaded.plan.multi ? undefined : loaded.plan.tables.get('')
    if (q.table_name !== undefined && q.table_name !== '') {
      if (!loaded.plan.multi) throw badRequest('this database has no tables; leave table_name out', {available_tables: []})
      ;({tableName, table} = searchTable(loaded.plan, q.table_name))
    } else if (!loaded.plan.multi) tableName = null
    const spec = buildQuery({sort: q.sort, limit: q.limit, offset: q.offset, after_id: q.after_id}, table, loaded.plan.declared)
    return c.json(await deps.store.dbs.query(loaded.accountId, loaded.db.id, {...spec, tableName}))
  })

  priv.post('/svc/dbs/:db_id/records.json', async (c) => {
    const loaded = await loadDb(deps, requireCan(c, 'record.write').accountId, c.req.param('db_id'))
    const record = envelope(await jsonObject(c), 'record')
    const write = recordWrite(loaded, record.table_name, dataObject(record.data), 'create', quotas.record_bytes)
    return c.json(await deps.store.dbs.createRecord(loaded.accountId, loaded.db.id, write), 201)
  })

  /** Bulk insert for `svc db import`: `{records: [{table_name, data}]}`, all or nothing. */
  priv.post('/svc/dbs/:db_id/import.json', async (c) => {
    const loaded = await loadDb(deps, requireCan(c, 'record.write').accountId, c.req.param('db_id'))
    const body = await jsonObject(c)
    if (!Array.isArray(body.records)) throw badRequest('"records" must be an array')
    if (body.records.length > IMPORT_BATCH_MAX) throw badRequest(`at most ${IMPORT_BATCH_MAX} records per request`)
    const bag = new FieldErrorBag()
    const writes: RecordWrite[] = []
    body.records.forEach((raw: unknown, i: number) => {
      try {
        const r = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {}
        writes.push(recordWrite(loaded, r.table_name, dataObject(r.data), 'create', quotas.record_bytes))
      } catch (e) {
        const details = (e as {details?: Record<string, string[]>}).details
        if (!details) throw e
        for (const [k, ms] of Object.entries(details)) for (const m of ms) bag.add(`records[${i}].${k}`, m)
      }
    })
    bag.throwIfAny()
    // `?dry_run=1`: validate only (svc db import checks a whole file before writing any of it).
    if (c.req.query('dry_run') === '1') return c.json({imported: 0, valid: writes.length}, 200)
    return c.json({imported: await deps.store.dbs.createRecords(loaded.accountId, loaded.db.id, writes)}, 201)
  })

  priv.get('/svc/dbs/:db_id/records/:id{[^/]+\\.json}', async (c) => {
    const loaded = await loadDb(deps, requireUser(c).accountId, c.req.param('db_id'))
    const record = await deps.store.dbs.getRecord(loaded.accountId, loaded.db.id, recordId(c.req.param('id')))
    if (!record) throw notFound('record not found')
    return c.json(record)
  })

  priv.patch('/svc/dbs/:db_id/records/:id{[^/]+\\.json}', async (c) => {
    const loaded = await loadDb(deps, requireCan(c, 'record.write').accountId, c.req.param('db_id'))
    const id = recordId(c.req.param('id'))
    const record = envelope(await jsonObject(c), 'record')
    const data = dataObject(record.data, false)
    // Data is merged over the stored record (shallow); in a multi-table db, no table_name means the null table.
    const updated = await deps.store.dbs.updateRecord(loaded.accountId, loaded.db.id, id,
      (existing) => recordWrite(loaded, record.table_name, {...existing.data, ...data}, 'update', quotas.record_bytes))
    if (!updated) throw notFound('record not found')
    return c.json(updated)
  })

  priv.delete('/svc/dbs/:db_id/records/:id{[^/]+\\.json}', async (c) => {
    const loaded = await loadDb(deps, requireCan(c, 'record.write').accountId, c.req.param('db_id'))
    if (!(await deps.store.dbs.deleteRecord(loaded.accountId, loaded.db.id, recordId(c.req.param('id'))))) throw notFound('record not found')
    return c.body(null, 204)
  })

  priv.get('/svc/dbs/:db_id/search.json', async (c) => {
    const loaded = await loadDb(deps, requireUser(c).accountId, c.req.param('db_id'))
    const q = flatQuery(c)
    const {tableName, table} = searchTable(loaded.plan, q.table_name)
    const spec = buildQuery(queryInput(q), table, loaded.plan.declared)
    const records = await deps.store.dbs.query(loaded.accountId, loaded.db.id, {...spec, tableName})
    return c.json(records.map((r) => flat(r, spec.fields)))
  })

  app.route('/', priv)
  return app
}
