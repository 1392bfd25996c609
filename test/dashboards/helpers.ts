import {randomUUID} from 'node:crypto'
import {rawQuery} from '../helpers/pg.js'
import type {Seed} from '../helpers/world.js'

/** Users with the permissions the dashboard rules name. */
export const DASHBOARD_SEED: Seed = {
  accounts: ['acme', 'other'],
  users: [
    {login: 'admin', role: 'admin'},
    {login: 'boss', role: 'manager', permissions: ['account']},
    {login: 'bossadv', role: 'manager', permissions: ['account', 'dashboard_advanced']},
    {login: 'adv', role: 'user', permissions: ['dashboard_advanced']},
    {login: 'alice', role: 'user'},
    {login: 'bob', role: 'user', permissions: ['todo', 'crm_notes_index']},
    {login: 'mallory', account: 'other', role: 'admin'},
  ],
  modules: {acme: ['crm']},
}

/**
 * Puts an app row straight into the apps table (owned by the apps area) so that `svc_app:` tiles
 * can be tested without depending on the apps routes: every NOT NULL column without a default
 * gets a plain value. `target` is a data dir (SQLite) or a test world (SQLite or PostgreSQL).
 */
export async function insertApp(target: string | {dataDir: string; databaseUrl?: string}, accountId: number, options: {active?: boolean; name?: string} = {}): Promise<string> {
  const where = typeof target === 'string' ? {dataDir: target} : target
  const id = randomUUID()
  const columns: {name: string; type: string; required: boolean}[] = where.databaseUrl
    ? (await rawQuery(where, "SELECT column_name AS name, data_type AS type, is_nullable = 'NO' AND column_default IS NULL AS required FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'apps'"))
    : (await rawQuery(where, 'PRAGMA table_info(apps)')).map((c: any) => ({name: c.name, type: c.type, required: !!c.notnull && !c.pk && c.dflt_value === null}))
  const active = options.active !== false
  const values: Record<string, unknown> = {id, account_id: accountId, name: options.name ?? 'Weather', active: active ? 1 : 0}
  for (const c of columns) {
    if (c.name in values || !c.required) continue
    values[c.name] = /INT|numeric|double|real/i.test(c.type) ? 1
      : /bool/i.test(c.type) ? true
      : /json/i.test(c.type) ? '{}'
      : c.name === 'url_code' ? `app-${id.slice(0, 8)}`
      : c.name.endsWith('_at') || /timestamp/i.test(c.type) ? new Date().toISOString()
      : 'x'
  }
  const names = Object.keys(values)
  await rawQuery(where, `INSERT INTO apps (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`, names.map((n) => values[n]))
  return id
}
