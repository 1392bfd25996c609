/**
 * `POST /svc/dbs/plan.json`: the plan of a db change (src/core/dbs/plan.ts), written nothing. The
 * proposed definition is checked as the write would check it (a create, or a PATCH merged over the
 * stored db: the same 422), then diffed against the stored one; the usage is read when a change
 * drops a field or table, and the stored records are read page by page when a change can make one
 * invalid — a turn of the event loop between pages, so a large db never holds the server's thread.
 */
import {setImmediate as turn} from 'node:timers/promises'
import type {Context} from 'hono'
import {dbRoutes as routes} from '../../../core/contract/routes.js'
import {DbInput, DbPatch} from '../../../core/contract/dbs.js'
import {svcMessage} from '../../../core/contract/messages.js'
import {dbData} from '../../../core/dbs/db.js'
import {dbEtag} from '../../../core/dbs/etag.js'
import {isSvcError} from '../../../core/errors.js'
import {addInvalid, definitionOf, emptyInvalidReport, finishPlan, startPlan} from '../../../core/dbs/plan.js'
import {buildQuery} from '../../../core/dbs/query.js'
import type {Usage} from '../../../core/dbs/diff.js'
import type {AppEnv, Deps} from '../../env.js'
import {allowedTo, requireUser} from '../../middleware/auth.js'
import {handle, validationError, type createRouter} from '../../router.js'
import {asInput, loadDb} from './shared.js'

/** Records read per page of the invalid-records check. */
const PAGE = 100

export function planRoute(deps: Deps, app: ReturnType<typeof createRouter>): void {
  handle(app, routes.planDbChange, allowedTo('db.manage'), async (c: Context<AppEnv>, {body}) => {
    const {accountId} = requireUser(c)
    const byCode = body.id === undefined && typeof body.db.code === 'string' && body.db.code.trim() ? body.db.code.trim() : null
    const ref = body.id !== undefined && body.id !== null ? String(body.id) : byCode
    // An `id` that names no db is a 404; a code of a db not yet created plans its creation.
    const loaded = ref === null ? null : await loadDb(deps, accountId, ref, true).catch((error: unknown) => {
      if (byCode !== null && isSvcError(error) && error.status === 404) return null
      throw error
    })
    const current = loaded?.db ?? null
    const parsed = await (current ? DbPatch : DbInput).safeParseAsync(body.db, {error: svcMessage})
    if (!parsed.success) throw validationError('json', parsed.error.issues)
    const next = dbData(parsed.data as never, current ? asInput(current) : undefined)
    const {changes, needsUsage, check} = startPlan(current && definitionOf(current), definitionOf(next))
    let usage: Usage | null = null
    let invalid = emptyInvalidReport()
    if (loaded && current) {
      if (needsUsage) {
        const byTable = new Map<string | null, string[]>()
        for (const [key, t] of loaded.plan.tables) byTable.set(loaded.plan.multi ? key : null, Object.keys(t.fields))
        usage = {tables: await deps.store.dbs.usage(accountId, current.id, byTable)}
      }
      if (check && current.records_count !== 0) {
        for (let after = 0; ;) {
          const spec = buildQuery({after_id: String(after), limit: String(PAGE)}, undefined, false)
          const page = await deps.store.dbs.query(accountId, current.id, {...spec, tableName: undefined})
          invalid = addInvalid(invalid, check, page)
          if (page.length < PAGE) break
          after = page[page.length - 1]!.id
          await turn()
        }
      }
    }
    return c.json(finishPlan(current && {id: current.id, etag: dbEtag(current)}, changes, usage, invalid))
  })
}
