import {randomBytes} from 'node:crypto'
import type {Context, MiddlewareHandler} from 'hono'
import {setSignedCookie} from 'hono/cookie'
import {
  allowedSearchParams, type MethodOptions, methodOptions, neededVariables, publicData, type PublicMethod, type PublicMethods, scopeOf, scopeTemplate, type Visitor,
} from '../../../core/dbs/public-methods.js'
import {buildQuery, searchTable} from '../../../core/dbs/query.js'
import {checkRecordSize, indexValues, validateData} from '../../../core/dbs/records.js'
import {jsonBytes, quotasOf} from '../../../core/quotas.js'
import {planSchema, tablePlan} from '../../../core/dbs/schema.js'
import {badRequest, isSvcError, notFound, rateLimited, SvcError} from '../../../core/errors.js'
import {dbRoutes as routes} from '../../../core/contract/routes.js'
import type {DbView, PublicCall, RecordView} from '../../../core/contract/dbs.js'
import type {AppEnv, Deps} from '../../env.js'
import {createRouter, handle, slot} from '../../router.js'
import {clientIp, IN_PROCESS_IP} from '../../client-ip.js'
import {visitorDigest} from '../../middleware/access-log.js'
import {dict} from '../../../core/safe-keys.js'
import {MAX_JSON_DEPTH, nestedDeeperThan} from '../../../core/json-depth.js'
import {PUBLIC_READS} from '../../../core/dbs/public-reads.js'
import {publicReadLimit} from './read-limit.js'
import {VISITOR_COOKIE, visitorCookieKey, visitorCookieScope, visitorSecret} from './visitor-cookie.js'
import {publicSubscribe} from './subscribe.js'

export {VISITOR_COOKIE, visitorSecret}
export const VISITOR_COOKIE_MAX_AGE = 30 * 24 * 3600
export {IN_PROCESS_IP}

const WRITES = new Set<PublicMethod>(['create', 'update', 'delete'])
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const shape = (r: RecordView) => ({id: r.id, data: r.data, created_at: r.created_at, updated_at: r.updated_at})

/** `{ip}`: the client address by the server's one rule (src/http/client-ip.ts). */
export function peerAddress(c: Context<AppEnv>, trustProxy: boolean): string {
  return clientIp(c, {trustProxy})
}

/** A fixed window per visitor address, shared by every instance over the store (in memory on SQLite). */
function rateLimiter(deps: Deps, config: {limit: number; windowSeconds: number}) {
  return async (key: string) => {
    if (config.limit <= 0) return
    if ((await deps.store.cluster.countHit('db-public-writes', key, config.windowSeconds)) > config.limit) {
      throw rateLimited(`too many writes; at most ${config.limit} per ${config.windowSeconds} s`)
    }
  }
}

export function writeLimitFromEnv(value = process.env.SVC_DB_PUBLIC_WRITES): {limit: number; windowSeconds: number} {
  const m = /^(\d+)\/(\d+)$/.exec(value?.trim() ?? '')
  return m ? {limit: Number(m[1]), windowSeconds: Math.max(1, Number(m[2]))} : {limit: 120, windowSeconds: 60}
}

/**
 * Parameters of a public call: the query string, overlaid by the JSON body of a POST (its members
 * checked by PublicCallBody). `data[f]` query keys build `data`; `data` in the query is JSON.
 */
function callParams(c: Context<AppEnv>, body: PublicCall | undefined): Record<string, unknown> {
  // No prototype: a `__proto__` or `constructor` key in the query or the body is a plain key.
  const params = dict<unknown>()
  const data = dict<unknown>()
  for (const [k, v] of new URL(c.req.url).searchParams) {
    const m = /^data\[(.+)\]$/.exec(k)
    if (m) data[m[1]!] = v
    else params[k] = v
  }
  if (typeof params.data === 'string') {
    try {
      params.data = JSON.parse(params.data)
    } catch {
      throw badRequest('"data" must be a JSON object')
    }
    if (nestedDeeperThan(params.data)) throw badRequest(`"data" nests deeper than ${MAX_JSON_DEPTH} levels`)
    if (!isObject(params.data)) throw publicError({data: ['must be an object']})
  } else if (Object.keys(data).length) params.data = data
  if (body) for (const [k, v] of Object.entries(body)) if (v !== undefined) params[k] = v
  return params
}

/** A parameter as text (the body's schema and the query string let only strings, numbers and booleans through). */
const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v))

function idParam(v: unknown): number {
  const s = str(v)?.trim()
  if (!s || !/^\d{1,15}$/.test(s)) throw notFound('record not found')
  return Number(s)
}

const dataParam = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {})

/**
 * `data` of a public create or update, which is required: without it (a record's fields sent at the
 * top level, `{"title": "x"}`), a 422 that names `data` and the parameters the method does not take.
 */
function requiredData(params: Record<string, unknown>, method: 'create' | 'update'): Record<string, unknown> {
  if (params.data !== undefined) return dataParam(params.data)
  const takes = method === 'create' ? ['data'] : ['id', 'data']
  const stray = Object.keys(params).filter((k) => !takes.includes(k)).sort().slice(0, 20).map((k) => k.slice(0, 64))
  const fields = dict<string[]>()
  fields.data = ['is required']
  for (const k of stray) fields[k] = [`is not a parameter of ${method} (fields go inside "data")`]
  const error = `"data" is required${stray.length ? `; not expected: ${stray.join(', ')} (send {"data": {...}})` : ''}`
  throw new SvcError('validation', 422, error, {error, fields: {...fields}})
}

/** The public 422: `{error, fields}` (decisions.md "Public method errors"). */
function publicError(fields: Record<string, string[]>): SvcError {
  const keys = Object.keys(fields)
  const error = keys.length === 1 && fields[keys[0]!]!.length === 1 ? `"${keys[0]}" ${fields[keys[0]!]![0]}` : 'validation failed'
  return new SvcError('validation', 422, error, {error, fields})
}

/** A field map (the parameters' schema, the record against the db's schema, its size) as the public shape; the 422 of a body nested too deep stays as every route answers it. */
function publicShape(e: unknown): unknown {
  if (!isSvcError(e) || e.code !== 'validation' || !e.details || ('fields' in e.details && 'error' in e.details)) return e
  const fields = e.details as Record<string, string[]>
  if (Object.keys(fields).every((k) => k === 'body')) return e
  return publicError(fields)
}

/** The db of the call and the options of its method, loaded before the body is read. */
interface Call {
  db: DbView & {account_id: number}
  config: PublicMethods
  options: MethodOptions
  name: PublicMethod
  ip: string
}
const loadedCall = slot<Call>('publicCall')

/** `GET|POST /svc/db/:db_code/:method_name`: the public methods, without authorization. */
export function publicDbRoutes(deps: Deps) {
  const app = createRouter()
  const limit = rateLimiter(deps, deps.dbPublicWrites ?? writeLimitFromEnv())
  const readLimit = publicReadLimit(deps)
  const quotas = quotasOf(deps.quotas)
  const subscribe = publicSubscribe(deps)
  /**
   * Charges a public write's bytes to the visitor's address and to the database (429 past either
   * budget), in the store's shared budgets: N instances over PostgreSQL share one budget.
   */
  const chargeWrite = async (ip: string, dbId: number, data: Record<string, unknown>) => {
    const bytes = jsonBytes(data)
    const charge = (bucket: string, key: string, budget: number) => deps.store.cluster.chargeWithin(bucket, key, bytes, budget, 60)
    if (!(await charge('db-public-bytes-ip', ip, quotas.public_write_bytes_per_ip))) {
      throw rateLimited(`too much data written; at most ${quotas.public_write_bytes_per_ip} bytes a minute per client address`)
    }
    if (!(await charge('db-public-bytes-db', String(dbId), quotas.public_write_bytes_per_db))) {
      throw rateLimited(`too much data written to this database; at most ${quotas.public_write_bytes_per_db} bytes a minute`)
    }
  }
  /** Records of a public list or search, as many as fit in `public_list_bytes`. */
  const listReply = (c: Context<AppEnv>, records: RecordView[]) => {
    const out: ReturnType<typeof shape>[] = []
    let bytes = 2
    for (const r of records) {
      const s = shape(r)
      bytes += jsonBytes(s) + 1
      if (bytes > quotas.public_list_bytes && quotas.public_list_bytes > 0) {
        c.header('X-Svc-Truncated', '1')
        break
      }
      out.push(s)
    }
    return c.json(out)
  }

  /**
   * Middleware: the database of `:db_code` (404), its method enabled (404), and for a write the
   * visitor's rate limit (429) — all before the body is read: a flood costs no parsing. A read
   * passes the read budgets first (429) and is charged the time it took (src/http/routes/dbs/read-limit.ts).
   * Every validation error of the call then answers the public shape `{error, fields}`.
   */
  const call: MiddlewareHandler<AppEnv> = async (c, next) => {
    const code = c.req.param('db_code') ?? ''
    const method = c.req.param('method_name') ?? ''
    // On an app's origin only the db the app declares (`db_code`) answers, in the app's account (src/http/app-origin/).
    const hosted = c.get('hostedApp')
    if (hosted && code !== hosted.db_code) throw notFound('database not found')
    const db = code.length <= 64 ? await deps.store.dbs.findByCode(code, hosted?.account_id) : null
    if (!db) throw notFound('database not found')
    const config = db.public_methods as PublicMethods
    const options = methodOptions(config, method)
    if (!options) throw notFound(`method "${method.slice(0, 40)}" is not enabled`)
    const name = method as PublicMethod
    const ip = peerAddress(c, deps.trustProxy ?? false)
    if (WRITES.has(name)) await limit(ip)
    const read = PUBLIC_READS.has(name) ? await readLimit.admit(c, db, ip) : null
    loadedCall.set(c, {db, config, options, name, ip})
    try {
      await next()
    } catch (e) {
      throw publicShape(e)
    } finally {
      if (read) await readLimit.settle(read)
    }
    // Hono answers an error of the handler (or of the body's schema) through onError before this returns.
    const reshaped = c.error && publicShape(c.error)
    if (reshaped && reshaped !== c.error) {
      const err = reshaped as SvcError
      c.error = err
      c.res = undefined
      c.res = c.json(err.details, 422)
    }
  }

  const handler = async (c: Context<AppEnv>, body: PublicCall | undefined) => {
    const {db, config, options, name, ip} = loadedCall.get(c)
    const params = callParams(c, body)

    const needed = neededVariables(config, name)
    let cookieKey = ''
    /** The visitor came with a valid cookie (not one issued by this answer). */
    let known = false
    // A feed's visitor is counted by their cookie (its quota), so a feed reads it whatever its scope needs.
    if (needed.has('cookie_key') || name === 'subscribe') {
      // Signed with a key of this origin: an id another origin issued (or tossed onto a parent domain) is not valid here.
      // Over https a `__Host-` cookie, which no sibling host can set; the plain name is then not read.
      const scope = await visitorCookieScope(c, deps)
      const {secret, prefix} = scope
      cookieKey = await visitorCookieKey(c, deps, scope)
      known = cookieKey !== ''
      if (!cookieKey) {
        // Absent, forged, altered or issued elsewhere: a new visitor.
        cookieKey = randomBytes(18).toString('base64url')
        await setSignedCookie(c, VISITOR_COOKIE, cookieKey, secret, {
          httpOnly: true, sameSite: 'Strict', path: '/', maxAge: VISITOR_COOKIE_MAX_AGE, secure: prefix === 'host', prefix,
        })
      }
    }
    c.set('logAccountId', db.account_id)
    if (cookieKey) c.set('logVisitor', visitorDigest(cookieKey))
    const user = c.get('user')
    const visitor: Visitor = {
      ip, cookie_key: cookieKey,
      user_id: user && user.accountId === db.account_id ? String(user.id) : '',
      user_name: user && user.accountId === db.account_id ? user.name || user.login : '',
    }
    const s = scopeOf(config, name, visitor)
    const scope = s ? {field: s.field, value: s.value} : undefined
    const plan = planSchema(db.schema)
    const repo = deps.store.dbs
    const account = db.account_id

    switch (name) {
      case 'list': {
        const spec = buildQuery({limit: str(params.limit), offset: str(params.offset)}, undefined, plan.declared)
        return listReply(c, await repo.query(account, db.id, {...spec, scope}))
      }
      case 'get': {
        const record = await repo.getRecord(account, db.id, idParam(params.id), scope)
        if (!record) throw notFound('record not found')
        return c.json(shape(record))
      }
      case 'search': {
        const allowed = allowedSearchParams(options)
        const pick = (k: string) => (allowed.has(k) ? str(params[k]) : undefined)
        const {tableName, table} = searchTable(plan, pick('table_name'))
        const spec = buildQuery({q: pick('q'), sort: pick('sort'), limit: pick('limit'), offset: pick('offset')}, table, plan.declared)
        return listReply(c, await repo.query(account, db.id, {...spec, tableName, scope}))
      }
      case 'create': {
        const data = publicData(options, requiredData(params, 'create'), visitor, 'create')
        // Multi-table databases: public create stores table_name null (no table validation or indexing).
        const table = plan.multi ? undefined : tablePlan(plan, null)
        const converted = validateData(table, data)
        checkRecordSize(converted, quotas.record_bytes)
        const write = {tableName: null, data: converted, index: indexValues(table, converted)}
        await chargeWrite(ip, db.id, write.data)
        return c.json(shape(await repo.createRecord(account, db.id, write, quotas.public_db_records)), 201)
      }
      case 'update': {
        const input = requiredData(params, 'update')
        // The bytes sent are charged (the merged record is checked against record_bytes inside).
        await chargeWrite(ip, db.id, input)
        const updated = await repo.updateRecord(account, db.id, idParam(params.id), (existing) => {
          const data = {...existing.data, ...publicData(options, input, visitor, 'update', existing.data)}
          // Public callers cannot address tables: the record keeps its table.
          const table = tablePlan(plan, existing.table_name)
          const converted = validateData(table, data)
          checkRecordSize(converted, quotas.record_bytes)
          return {tableName: existing.table_name, data: converted, index: indexValues(table, converted)}
        }, scope)
        if (!updated) throw notFound('record not found')
        return c.json(shape(updated))
      }
      case 'subscribe':
        return subscribe(c, {db, options, scope, visitorKey: known ? cookieKey : `ip:${ip}`, ip, tableName: str(params.table_name),
          userScoped: !!s && /\{user_(id|name)\}/.test(scopeTemplate(config, name, s.field) ?? '')})
      case 'delete': {
        const id = idParam(params.id)
        if (!(await repo.deleteRecord(account, db.id, id, scope))) throw notFound('record not found')
        return c.json({id, deleted: true})
      }
    }
  }
  handle(app, routes.callPublicMethodGet, call, async (c) => handler(c, undefined))
  handle(app, routes.callPublicMethodPost, call, async (c, {body}) => handler(c, body))
  return app
}
