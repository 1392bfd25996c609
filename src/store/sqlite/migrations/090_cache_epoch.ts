import type {Migration} from '../../migrations/types.js'

/** Tables whose rows read caches keep (callers and their groups, databases and their schemas). */
export const CACHED_TABLES = ['accounts', 'teams', 'departments', 'groups', 'users', 'user_teams', 'user_groups', 'tokens', 'dbs'] as const

/**
 * One counter that every committed change of a cached table bumps (triggers, so a write by any
 * process and any code path counts): a cache entry is valid while the counter has not moved.
 */
export const migration: Migration = {
  id: 90,
  name: 'cache epoch: a counter bumped by every change of accounts, users, tokens and dbs',
  up: `
CREATE TABLE cache_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
INSERT INTO cache_epoch (id, n) VALUES (1, 0);
${CACHED_TABLES.flatMap((table) => ['INSERT', 'UPDATE', 'DELETE'].map((op) =>
    `CREATE TRIGGER cache_epoch_${table}_${op.toLowerCase()} AFTER ${op} ON ${table} BEGIN UPDATE cache_epoch SET n = n + 1 WHERE id = 1; END;`)).join('\n')}
`,
}

export const notify: Migration = {
  id: 91,
  name: 'cache epoch notified: every bump tells the listening instances its new value',
  // PostgreSQL only (LISTEN/NOTIFY between instances); SQLite reads its counter in-process.
  up: '',
}
