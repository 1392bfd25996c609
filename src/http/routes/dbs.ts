import {dbRoutes as routes} from '../../core/contract/routes.js'
import {DbPatch, type DbView, type RecordView} from '../../core/contract/dbs.js'
import {applyReplace, dbData, type DbInput} from '../../core/dbs/db.js'
import {buildQuery, filtersFromQuery, searchTable} from '../../core/dbs/query.js'
import {checkRecordSize, indexValues, recordTable, validateData, type Data} from '../../core/dbs/records.js'
import {quotasOf} from '../../core/quotas.js'
import {svcMessage} from '../../core/contract/messages.js'
import {badRequest, FieldErrorBag, isSvcError, notFound, preconditionFailed} from '../../core/errors.js'
import {dbEtag, ifMatchHolds, recordEtag} from '../../core/dbs/etag.js'
import {writeOnVersion} from '../../core/etag.js'
import type {RecordWrite} from '../../store/dbs/types.js'
import type {Deps} from '../env.js'
import {allowedTo, requireUser} from '../middleware/auth.js'
import {createRouter, handle, param, validationError} from '../router.js'
import {planRoute} from './dbs/plan.js'
import {publicDbRoutes} from './dbs/public.js'
import {asInput, dbLoader, flatQuery, loadDb, loadedDb, recordId, type LoadedDb} from './dbs/shared.js'

export {IMPORT_BATCH_MAX} from '../../core/contract/dbs.js'


/** A record write for `table` of a loaded db: the db's own table and field types (code: they are the user's), index values. */
function recordWrite(loaded: LoadedDb, table: string | null | undefined, data: Data, mode: 'create' | 'update', maxBytes: number): RecordWrite {
  const {tableName, table: plan} = recordTable(loaded.plan, table, mode)
  const converted = validateData(plan, data)
  checkRecordSize(converted, maxBytes)
  return {tableName, data: converted, index: indexValues(plan, converted)}
}

/** A write's `If-Match` against the stored record: a 412 with the current record (and its tag) when it no longer matches. */
function checkIfMatch(ifMatch: string | undefined, existing: RecordView): void {
  const current = recordEtag(existing)
  if (!ifMatchHolds(ifMatch, current)) {
    throw preconditionFailed('the record changed since you read it (If-Match does not match its ETag); nothing was written', {etag: current, current: existing})
  }
}

/** A db write's `If-Match` against the stored definition: a 412 with the current db when it no longer matches. */
function checkDbIfMatch(ifMatch: string | undefined, current: DbView): void {
  const tag = dbEtag(current)
  if (!ifMatchHolds(ifMatch, tag)) {
    throw preconditionFailed('the database changed since you read it (If-Match does not match its ETag); nothing was written', {etag: tag, current})
  }
}

/** Flat search shape: user fields at the top level, then id, created_at, updated_at. */
function flat(record: RecordView, fields?: string[]): Record<string, unknown> {
  const data = fields ? Object.fromEntries(fields.filter((f) => Object.hasOwn(record.data, f)).map((f) => [f, record.data[f]])) : record.data
  return {...data, id: record.id, created_at: record.created_at, updated_at: record.updated_at}
}

/**
 * Routes of the dbs area (platform-api.md "Databases"): private CRUD, replace, usage, records,
 * search and import, then the public methods. Every route with a db in its path loads it once
 * (`dbLoader`: 401, 403 for a write without its permission, 404 for an unknown or foreign db);
 * bodies and queries are checked by their contract schemas before the handler.
 */
export function dbsRoutes(deps: Deps) {
  const app = createRouter()
  app.route('/', publicDbRoutes(deps))
  const quotas = quotasOf(deps.quotas)
  const reader = dbLoader(deps)
  const manager = dbLoader(deps, {can: 'db.manage'})
  const writer = dbLoader(deps, {can: 'record.write'})
  const db = (c: Parameters<typeof loadedDb.get>[0]) => loadedDb.get(c)

  handle(app, routes.listDbs, async (c) => c.json(await deps.store.dbs.list(requireUser(c).accountId)))

  handle(app, routes.createDb, allowedTo('db.manage'), async (c, {body}) => {
    const created = await deps.store.dbs.create(requireUser(c).accountId, dbData(body.db))
    c.header('ETag', dbEtag(created))
    return c.json(created, 201)
  })

  planRoute(deps, app)

  handle(app, routes.getDb, dbLoader(deps, {count: true}), async (c) => {
    c.header('ETag', dbEtag(db(c).db))
    return c.json(db(c).db)
  })

  /**
   * Saves the db `merge` makes of a version of it, checked inside the store's write against the
   * stored definition: with If-Match, against the client's tag (412); without, against the version
   * the merge was made on, merged again on the db as it is now when another write changed it
   * meanwhile (docs/api.md "ETag and If-Match").
   */
  const save = async (c: Parameters<typeof loadedDb.get>[0], merge: (base: DbView) => Promise<DbInput> | DbInput) => {
    const {accountId, db: first} = db(c)
    const saved = await writeOnVersion({
      ifMatch: c.req.header('if-match'),
      what: 'database',
      loaded: first,
      tagOf: dbEtag,
      checkFor: (ifMatch) => (current: DbView) => checkDbIfMatch(ifMatch, current),
      // A fresh read (not the view cached for record routes); the permission was checked before the first load.
      reload: async () => (await loadDb(deps, accountId, String(first.id), true)).db,
      write: async (base, check) => {
        const next = await merge(base)
        const schemaChanged = JSON.stringify(next.schema) !== JSON.stringify(base.schema)
        return deps.store.dbs.update(accountId, first.id, next, schemaChanged, check)
      },
    })
    if (!saved) throw notFound('database not found')
    c.header('ETag', dbEtag(saved))
    return saved
  }

  handle(app, routes.updateDb, manager, async (c, {body}) => c.json(await save(c, (base) => dbData(body.db, asInput(base)))))

  handle(app, routes.deleteDb, manager, async (c) => {
    // If-Match is checked inside the store's write, against the db as stored when it is deleted.
    const ifMatch = c.req.header('if-match')
    const check = ifMatch === undefined ? undefined : (current: DbView) => checkDbIfMatch(ifMatch, current)
    if (!(await deps.store.dbs.delete(db(c).accountId, db(c).db.id, check))) throw notFound('database not found')
    return c.body(null, 204)
  })

  /** The edited member is checked as a PATCH of that member would be (its schema, with the same 422 field map). */
  handle(app, routes.replaceInDb, manager, async (c, {body}) => {
    return c.json(await save(c, async (base) => {
      const value = applyReplace(base[body.field], body)
      const parsed = await DbPatch.safeParseAsync({[body.field]: value}, {error: svcMessage})
      if (!parsed.success) throw validationError('json', parsed.error.issues)
      return dbData(parsed.data, asInput(base))
    }))
  })

  /** Record counts per table and per schema field (non-null values): what `svc db push` checks before dropping. */
  handle(app, routes.getDbUsage, reader, async (c, {query}) => {
    const loaded = db(c)
    const byTable = new Map<string | null, string[]>()
    for (const [key, t] of loaded.plan.tables) byTable.set(loaded.plan.multi ? key : null, query.fields === false ? [] : Object.keys(t.fields))
    const tables = await deps.store.dbs.usage(loaded.accountId, loaded.db.id, byTable)
    return c.json({id: loaded.db.id, records_count: tables.reduce((n, t) => n + t.records_count, 0), tables})
  })

  handle(app, routes.listRecords, reader, async (c, {query}) => {
    const loaded = db(c)
    let tableName: string | null | undefined
    let table = loaded.plan.multi ? undefined : loaded.plan.tables.get('')
    if (query.table_name !== undefined) {
      if (!loaded.plan.multi) throw badRequest('this database has no tables; leave table_name out', {available_tables: []})
      ;({tableName, table} = searchTable(loaded.plan, query.table_name))
    } else if (!loaded.plan.multi) tableName = null
    const spec = buildQuery({sort: query.sort, limit: query.limit, offset: query.offset, after_id: query.after_id}, table, loaded.plan.declared)
    return c.json(await deps.store.dbs.query(loaded.accountId, loaded.db.id, {...spec, tableName}))
  })

  handle(app, routes.createRecord, writer, async (c, {body}) => {
    const loaded = db(c)
    const write = recordWrite(loaded, body.record.table_name, body.record.data, 'create', quotas.record_bytes)
    const created = await deps.store.dbs.createRecord(loaded.accountId, loaded.db.id, write)
    c.header('ETag', recordEtag(created))
    return c.json(created, 201)
  })

  /** Bulk insert for `svc db import`: `{records: [{table_name, data}]}`, all or nothing; every record's problems in one 422. */
  handle(app, routes.importRecords, writer, async (c, {body, query}) => {
    const loaded = db(c)
    if (!body.records) throw badRequest('"records" must be an array')
    const bag = new FieldErrorBag()
    const writes: RecordWrite[] = []
    body.records.forEach((r, i) => {
      try {
        writes.push(recordWrite(loaded, r.table_name, r.data, 'create', quotas.record_bytes))
      } catch (e) {
        if (!isSvcError(e) || e.code !== 'validation' || !e.details) throw e
        for (const [k, ms] of Object.entries(e.details as Record<string, string[]>)) for (const m of ms) bag.add(`records[${i}].${k}`, m)
      }
    })
    bag.throwIfAny()
    // `?dry_run=1`: validate only (svc db import checks a whole file before writing any of it).
    if (query.dry_run === '1') return c.json({imported: 0, valid: writes.length}, 200)
    // Door `import` (docs/history.md), whoever calls it (svc db import, the console's import, the API): the actor and request stay the request's.
    const context = deps.store.journal?.context
    const write = () => deps.store.dbs.createRecords(loaded.accountId, loaded.db.id, writes)
    const imported = context ? await context.run({...context.current(), door: 'import', client: null}, write) : await write()
    return c.json({imported}, 201)
  })

  handle(app, routes.getRecord, reader, async (c) => {
    const loaded = db(c)
    const record = await deps.store.dbs.getRecord(loaded.accountId, loaded.db.id, recordId(param(c, 'id')))
    if (!record) throw notFound('record not found')
    c.header('ETag', recordEtag(record))
    return c.json(record)
  })

  handle(app, routes.updateRecord, writer, async (c, {body}) => {
    const loaded = db(c)
    const id = recordId(param(c, 'id'))
    const {table_name: table, data = {}} = body.record
    const ifMatch = c.req.header('if-match')
    // Data is merged over the stored record (shallow); in a multi-table db, no table_name means the null table.
    // If-Match is checked inside the store's write, against the record it is about to change.
    const updated = await deps.store.dbs.updateRecord(loaded.accountId, loaded.db.id, id, (existing) => {
      checkIfMatch(ifMatch, existing)
      return recordWrite(loaded, table, {...existing.data, ...data}, 'update', quotas.record_bytes)
    })
    if (!updated) throw notFound('record not found')
    c.header('ETag', recordEtag(updated))
    return c.json(updated)
  })

  handle(app, routes.deleteRecord, writer, async (c) => {
    const loaded = db(c)
    const ifMatch = c.req.header('if-match')
    const check = ifMatch === undefined ? undefined : (existing: RecordView) => checkIfMatch(ifMatch, existing)
    if (!(await deps.store.dbs.deleteRecord(loaded.accountId, loaded.db.id, recordId(param(c, 'id')), undefined, check))) throw notFound('record not found')
    return c.body(null, 204)
  })

  handle(app, routes.searchRecords, reader, async (c, {query}) => {
    const loaded = db(c)
    const {tableName, table} = searchTable(loaded.plan, query.table_name)
    // Filters are read from the raw query into a prototype-less map: `filter[<name>]` keys are the user's.
    const spec = buildQuery({...query, filters: filtersFromQuery(flatQuery(c))}, table, loaded.plan.declared)
    const records = await deps.store.dbs.query(loaded.accountId, loaded.db.id, {...spec, tableName})
    return c.json(records.map((r) => flat(r, spec.fields)))
  })

  return app
}
