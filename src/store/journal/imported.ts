/**
 * An account import's rows in the journal (docs/history.md "The doors": door `import`): each row of a
 * journaled table that `svc admin import` inserts gets its `create` entry, in the import's own
 * transaction, as the store's own writes get theirs — the row as SELECT * reads it back (the target's
 * types, whatever store the export came from), secrets left out (stateText), no actor (the
 * command runs on the store, not as a user).
 */
import {NOBODY, type JournalKind} from '../../core/journal/types.js'
import type {BackupSql} from '../backup/account.js'
import type {CellValue} from '../backup/types.js'
import {JOURNAL_TABLES, stateText} from './tables.js'
import {summaryOf} from './writer.js'

const KIND_OF_TABLE = new Map(Object.entries(JOURNAL_TABLES).map(([kind, t]) => [t.table, kind as JournalKind]))
/** Entries one INSERT appends (17 parameters each: under SQLite's and PostgreSQL's limits). */
const CHUNK = 500
const COLUMNS = 'pos, account_id, kind, resource_id, parent_id, op, gone, state, summary, door, client, actor_type, actor_id, actor_name, request_id, at'

/** Appends the `create` entries of rows `ids` of `table` (nothing when the table is not journaled). */
export async function journalImported(sql: BackupSql, driver: 'sqlite' | 'pg', table: string, accountId: number, ids: readonly CellValue[]): Promise<void> {
  const kind = KIND_OF_TABLE.get(table)
  if (!kind || ids.length === 0) return
  const at = new Date().toISOString()
  const asStore = driver === 'pg' ? await pgReading(sql, table) : (row: Record<string, unknown>) => row
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK)
    const rows = (await sql.all(`SELECT * FROM ${table} WHERE id IN (${chunk.map(() => '?').join(', ')}) ORDER BY id`, chunk)).map(asStore)
    if (rows.length === 0) continue
    // SQLite: positions follow the journal's (the import holds the one write transaction); PostgreSQL draws them at commit (migration 70).
    let pos = driver === 'sqlite' ? Number((await sql.all('SELECT coalesce(max(pos), 0) AS n FROM journal', []))[0]!.n) : null
    const values: CellValue[] = []
    for (const row of rows) {
      values.push(pos === null ? null : ++pos, accountId, kind, String(row.id), kind === 'record' ? String(row.db_id) : null, 'create', 0,
        stateText(kind, row), summaryOf({kind, op: 'create', row, detail: 'imported'}), 'import', null, NOBODY.actor.type, null, null, null, at)
    }
    await sql.run(`INSERT INTO journal (${COLUMNS}) VALUES ${rows.map(() => `(${COLUMNS.split(',').map(() => '?').join(', ')})`).join(', ')}`, values)
  }
}

/**
 * A row of the import's PostgreSQL connection as the store's own connection reads it (src/store/pg/index.ts
 * PARSERS): bigints as numbers, json as its text — the kept row is then the one the store's own writes keep.
 */
async function pgReading(sql: BackupSql, table: string): Promise<(row: Record<string, unknown>) => Record<string, unknown>> {
  const columns = await sql.all('SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', [table])
  const numbers = new Set(columns.filter((c) => c.data_type === 'bigint').map((c) => String(c.column_name)))
  const json = new Set(columns.filter((c) => c.data_type === 'json' || c.data_type === 'jsonb').map((c) => String(c.column_name)))
  return (row) => {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(row)) {
      out[k] = v === null ? null : numbers.has(k) ? Number(v) : json.has(k) && typeof v !== 'string' ? JSON.stringify(v) : v
    }
    return out
  }
}
