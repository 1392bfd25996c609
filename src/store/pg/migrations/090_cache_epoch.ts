import type {Migration} from '../../migrations/types.js'

/** Tables whose rows read caches keep (callers and their groups, databases and their schemas). */
export const CACHED_TABLES = ['accounts', 'teams', 'departments', 'groups', 'users', 'user_teams', 'user_groups', 'tokens', 'dbs'] as const

/**
 * One version row that every committed change of a cached table bumps (statement triggers, so a
 * write by any instance and any code path counts): a cache entry is valid while it has not moved.
 */
export const migration: Migration = {
  id: 90,
  name: 'cache epoch: a counter bumped by every change of accounts, users, tokens and dbs',
  up: `
CREATE TABLE cache_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL);
INSERT INTO cache_epoch (id, n) VALUES (1, 0);
CREATE FUNCTION svc_bump_cache_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cache_epoch SET n = n + 1 WHERE id = 1;
  RETURN NULL;
END $$;
${CACHED_TABLES.map((table) =>
    `CREATE TRIGGER cache_epoch_${table} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION svc_bump_cache_epoch();`).join('\n')}
`,
}

/**
 * Each bump also notifies `svc_cache_epoch` with the new value (sent when the transaction commits):
 * an instance that listens holds the epoch without reading it per request (src/store/pg/epoch-listener.ts).
 */
export const notify: Migration = {
  id: 91,
  name: 'cache epoch notified: every bump tells the listening instances its new value',
  up: `
CREATE OR REPLACE FUNCTION svc_bump_cache_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bumped BIGINT;
BEGIN
  UPDATE cache_epoch SET n = n + 1 WHERE id = 1 RETURNING n INTO bumped;
  PERFORM pg_notify('svc_cache_epoch', bumped::text);
  RETURN NULL;
END $$;
`,
}
