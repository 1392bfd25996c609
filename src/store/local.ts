/**
 * The store's small entry (src/store/index.ts re-exports it): what code that must start fast needs
 * of a data dir's SQLite file without loading the whole store. `svc prompt render`'s fast path
 * (src/fastpath/) reads accounts and prompts through it; its bundle holds these two repositories only.
 */
import {SqlAccountsRepo} from './accounts/repo.js'
import type {AccountsRepo} from './accounts/types.js'
import {SqlPromptsRepo} from './prompts/repo.js'
import type {PromptsRepo} from './prompts/types.js'
import {openSqlite} from './sqlite/connection.js'
import {SqlitePort} from './sqlite/port.js'

/** The SQLite file of a data dir: `DIR/svc.sqlite`. */
export {dataFile} from './sqlite/connection.js'

/** What the fast path reads of a data dir: its accounts and prompts, nothing else. */
export interface LocalPrompts {
  accounts: AccountsRepo
  prompts: PromptsRepo
  close(): void
}

/** Opens the SQLite file of a data dir (creating and migrating it as openStore does) for accounts and prompts. */
export function openLocalPrompts(dataDir: string): LocalPrompts {
  const db = openSqlite(dataDir)
  const sql = new SqlitePort(db)
  return {accounts: new SqlAccountsRepo(sql), prompts: new SqlPromptsRepo(sql), close: () => db.close()}
}
