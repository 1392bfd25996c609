/**
 * The SQL of one account's export and import, written once for both drivers over a small port
 * (`?` placeholders; the PostgreSQL driver numbers them): which rows of each table belong to an
 * account, which of an archive's server-wide values a target holds already, and the target account.
 * The plan (which tables, which ids, which values) is core's: src/core/backup/account-plan.ts.
 */
import {CONNECTOR_KIND, EXPORTED_TOKEN_KINDS, type GlobalKey, type GlobalKind} from '../../core/backup/account-plan.js'
import type {CellValue} from './types.js'

export interface BackupSql {
  all(sql: string, params: readonly CellValue[]): Promise<Record<string, unknown>[]>
  run(sql: string, params: readonly CellValue[]): Promise<void>
}

/** The rows of an account in a table: a WHERE clause and its parameters (the account id as often as needed). */
export function accountFilter(table: string, accountId: number): {where: string; params: CellValue[]} {
  switch (table) {
    case 'accounts':
      return {where: 'id = ?', params: [accountId]}
    case 'app_assets':
      return {where: 'app_id IN (SELECT id FROM apps WHERE account_id = ?)', params: [accountId]}
    case 'app_builds':
      // The builds the account's apps serve (content-addressed: shared by apps of the same code).
      return {where: 'hash IN (SELECT build_hash FROM apps WHERE account_id = ?)', params: [accountId]}
    case 'dbs':
      // A db being deleted (its records purged in slices) is not part of the workspace any more.
      return {where: 'account_id = ? AND deleted_at IS NULL', params: [accountId]}
    case 'db_records':
      return {where: 'account_id = ? AND db_id IN (SELECT id FROM dbs WHERE account_id = ? AND deleted_at IS NULL)', params: [accountId, accountId]}
    case 'db_reindexes':
      return {where: 'db_id IN (SELECT id FROM dbs WHERE account_id = ? AND deleted_at IS NULL)', params: [accountId]}
    case 'tokens':
      return {where: `account_id = ? AND kind IN (${EXPORTED_TOKEN_KINDS.map(() => '?').join(', ')}) AND (expires_at IS NULL OR expires_at > ?)`,
        params: [accountId, ...EXPORTED_TOKEN_KINDS, new Date().toISOString()]}
    default:
      return {where: 'account_id = ?', params: [accountId]}
  }
}

/** Which of these server-wide values the target holds already (`kind:value`). */
export async function takenKeys(sql: BackupSql, keys: readonly GlobalKey[]): Promise<Set<string>> {
  const queries: Record<GlobalKind, (list: string) => string> = {
    prompt_id: (list) => `SELECT id AS v FROM prompts WHERE id IN (${list})`,
    app_id: (list) => `SELECT id AS v FROM apps WHERE id IN (${list})`,
    app_url_code: (list) => `SELECT url_code AS v FROM apps WHERE url_code IN (${list})`,
    connector_code: (list) => `SELECT code AS v FROM resources WHERE kind = '${CONNECTOR_KIND}' AND code IN (${list})`,
    public_db_code: (list) => `SELECT code AS v FROM dbs WHERE public_methods != '{}' AND code IN (${list})`,
    flow_run_id: (list) => `SELECT id AS v FROM flow_processes WHERE id IN (${list})`,
    token_hash: (list) => `SELECT token_hash AS v FROM tokens WHERE token_hash IN (${list})`,
  }
  const byKind = new Map<GlobalKind, string[]>()
  for (const key of keys) byKind.set(key.kind, [...(byKind.get(key.kind) ?? []), key.value])
  const taken = new Set<string>()
  for (const [kind, values] of byKind) {
    const unique = [...new Set(values)]
    for (let start = 0; start < unique.length; start += 500) {
      const chunk = unique.slice(start, start + 500)
      for (const row of await sql.all(queries[kind](chunk.map(() => '?').join(', ')), chunk)) taken.add(`${kind}:${String(row.v)}`)
    }
  }
  return taken
}

/** The locks the stores' own writes take on server-wide codes (PostgreSQL: so that an instance creating the same code meanwhile waits). */
export function lockNames(keys: readonly GlobalKey[]): string[] {
  const names = keys.map((k) => (k.kind === 'app_url_code' ? `app_url_code:${k.value}` : k.kind === 'public_db_code' ? `db_code:${k.value}` : ''))
  return [...new Set(names.filter(Boolean))].sort()
}

/** The target account: whether it exists, and whether anything of it exists besides its row. */
export async function accountState(sql: BackupSql, accountId: number, tables: readonly string[]): Promise<{exists: boolean; empty: boolean; name?: string}> {
  const [row] = await sql.all('SELECT name FROM accounts WHERE id = ?', [accountId])
  if (!row) return {exists: false, empty: false}
  for (const table of tables) {
    if (table === 'accounts' || table === 'app_builds') continue
    const {where, params} = accountFilter(table, accountId)
    if ((await sql.all(`SELECT 1 AS one FROM "${table}" WHERE ${where} LIMIT 1`, params)).length) return {exists: true, empty: false, name: String(row.name)}
  }
  return {exists: true, empty: true, name: String(row.name)}
}

/** The name of an account, or undefined when there is none of that id. */
export async function accountName(sql: BackupSql, accountId: number): Promise<string | undefined> {
  const [row] = await sql.all('SELECT name FROM accounts WHERE id = ?', [accountId])
  return row ? String(row.name) : undefined
}

/** The account settings (modules) of an imported workspace, on an existing account. */
export async function setAccountSettings(sql: BackupSql, accountId: number, settings: CellValue): Promise<void> {
  await sql.run('UPDATE accounts SET settings = ? WHERE id = ?', [settings, accountId])
}
