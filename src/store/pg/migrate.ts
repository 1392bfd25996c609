import type {Pool} from 'pg'
import {MIGRATIONS} from './migrations/index.js'

/** Advisory lock key of the migrations ('svcM'). */
const MIGRATION_LOCK = 0x7376634d

/**
 * Runs the pending migrations in one transaction under `pg_advisory_xact_lock`: when N instances
 * start together, one migrates and the others wait, then find nothing left to do.
 */
export async function migrate(pool: Pool): Promise<void> {
  const client = await pool.connect()
  let failed: Error | undefined
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
    const done = new Set((await client.query<{id: number}>('SELECT id FROM schema_migrations')).rows.map((r) => r.id))
    for (const m of MIGRATIONS) {
      if (done.has(m.id)) continue
      if (m.up.trim()) await client.query(m.up)
      await client.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [m.id, m.name, new Date().toISOString()])
    }
    await client.query('COMMIT')
  } catch (error) {
    failed = error as Error
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release(failed)
  }
}
