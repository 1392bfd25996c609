import Database from 'better-sqlite3'
import {randomUUID} from 'node:crypto'
import {join} from 'node:path'
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
 * gets a plain value.
 */
export function insertApp(dataDir: string, accountId: number, options: {active?: boolean; name?: string} = {}): string {
  const db = new Database(join(dataDir, 'svc.sqlite'))
  try {
    db.pragma('busy_timeout = 10000')
    const id = randomUUID()
    const columns = db.prepare('PRAGMA table_info(apps)').all() as {name: string; type: string; notnull: number; dflt_value: unknown; pk: number}[]
    const values: Record<string, unknown> = {id, account_id: accountId, name: options.name ?? 'Weather', active: options.active === false ? 0 : 1}
    for (const c of columns) {
      if (c.name in values || (!c.notnull && !c.pk) || c.dflt_value !== null) continue
      values[c.name] = /INT/i.test(c.type) ? 1 : c.name === 'url_code' ? `app-${id.slice(0, 8)}` : c.name.endsWith('_at') ? new Date().toISOString() : 'x'
    }
    const names = Object.keys(values)
    db.prepare(`INSERT INTO apps (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(...names.map((n) => values[n]))
    return id
  } finally {
    db.close()
  }
}
