import type {Migration} from '../../migrations/types.js'
import {binaryText, ID} from './dialect.js'

const INDEXED = ['idx_str_1', 'idx_str_2', 'idx_str_3', 'idx_int_1', 'idx_int_2', 'idx_time_1', 'idx_time_2']

/**
 * Records on PostgreSQL: `table_name` is '' for the records of a database without tables (an
 * equality stays indexable, where `IS NOT DISTINCT FROM` is not); index columns are real columns
 * with `(db_id, table_name, idx_*, id)` indexes (NULLS FIRST, as SQLite orders NULL; `id` last, so
 * "newest 20 by city" stays an index walk); search uses a pg_trgm GIN index over the record's
 * scalar values (stored in `search_text` since migration 52) as its candidate filter, the exact
 * check (SQLite's LIKE) after it.
 */
export const migrations: Migration[] = [
  {
    id: 50,
    name: 'json databases, records with index columns, trigram full-text index',
    up: binaryText(`
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE dbs (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  code TEXT,
  app_id TEXT,
  schema TEXT,
  public_methods TEXT NOT NULL DEFAULT '{}',
  fields TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX dbs_account_code ON dbs(account_id, code) WHERE code IS NOT NULL;
CREATE INDEX dbs_code ON dbs(code, id);
CREATE TABLE db_records (
  id ${ID},
  account_id BIGINT NOT NULL,
  db_id BIGINT NOT NULL REFERENCES dbs(id) ON DELETE CASCADE,
  table_name TEXT NOT NULL DEFAULT '',
  data JSON NOT NULL,
  idx_str_1 TEXT, idx_str_2 TEXT, idx_str_3 TEXT,
  idx_int_1 DOUBLE PRECISION, idx_int_2 DOUBLE PRECISION,
  idx_time_1 TEXT, idx_time_2 TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX db_records_table ON db_records(db_id, table_name, id);
${INDEXED.map((c) => `CREATE INDEX db_records_${c.slice(4)} ON db_records(db_id, table_name, ${c} NULLS FIRST, id);`).join('\n')}
-- A JSON value as SQLite's json_extract gives it: a string's text, true/false as 1/0, NULL for null, else the JSON text.
CREATE FUNCTION svc_scalar(j json) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE json_typeof(j) WHEN 'string' THEN j #>> '{}' WHEN 'boolean' THEN CASE WHEN j::text = 'true' THEN '1' ELSE '0' END
    WHEN 'null' THEN NULL ELSE j::text END;
-- The text the trigram index holds: a record's top-level strings and numbers, one a line.
CREATE FUNCTION svc_search_text(d json) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (SELECT coalesce(string_agg(svc_scalar(value), E'\\n'), '') FROM json_each(d) WHERE json_typeof(value) IN ('string', 'number'));
-- Sort keys of a JSON value in SQLite's order: NULL (or missing), then numbers (true/false as 1/0), then text (strings, objects, arrays).
CREATE FUNCTION svc_sort_rank(j json) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE json_typeof(j) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 2 WHEN 'array' THEN 2 ELSE 0 END;
CREATE FUNCTION svc_sort_num(j json) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE json_typeof(j) WHEN 'number' THEN (j::text)::double precision WHEN 'boolean' THEN CASE WHEN j::text = 'true' THEN 1 ELSE 0 END END;
CREATE FUNCTION svc_sort_text(j json) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN json_typeof(j) IN ('string', 'object', 'array') THEN svc_scalar(j) COLLATE "C" END;
CREATE INDEX db_records_trgm ON db_records USING gin (svc_search_text(data) gin_trgm_ops);
`),
  },
  {
    id: 51,
    name: 'full-text index written in batches: writes queue the record id, the indexer adds queued records to the trigram index',
    // SQLite only: PostgreSQL's GIN index takes writes as they come (its fast-update list is the batching).
    up: '',
  },
  {
    id: 52,
    name: 'search text stored beside the record: the trigram index\'s recheck reads a column instead of walking the JSON',
    // A trigram match is always rechecked on the row. On the expression index that meant running
    // svc_search_text (json_each + string_agg) again for every candidate: ~0.1 ms each, 400 ms for
    // the 3,400 candidates of a 5-letter fragment at 300k records. A stored generated column is
    // computed once per write; the recheck is a plain ILIKE on its text.
    up: `
ALTER TABLE db_records ADD COLUMN search_text TEXT GENERATED ALWAYS AS (svc_search_text(data)) STORED;
CREATE INDEX db_records_search_trgm ON db_records USING gin (search_text gin_trgm_ops);
DROP INDEX db_records_trgm;
`,
  },
  {
    id: 55,
    name: 'a db being deleted is marked first: hidden at once, its records purged in slices',
    // One DELETE of a 1M-record db held SQLite's (the server's) thread ~38 s. The mark is one short
    // transaction; the purge's slices leave turns of the event loop to other requests.
    up: `
ALTER TABLE dbs ADD COLUMN deleted_at TEXT;
CREATE INDEX dbs_deleted ON dbs(deleted_at) WHERE deleted_at IS NOT NULL;
`,
  },
  {
    id: 56,
    name: 'a schema change reindexes in slices: a db being reindexed keeps its place, its queries scan until it ends',
    // One transaction rewriting the index columns of a 300,000-record db held SQLite's (the server's)
    // thread 12.4 s. The mark names the next table and the last record done; each slice is one short
    // transaction, and the db's queries read its records' data (no index column) until the mark goes.
    up: `
CREATE TABLE db_reindexes (
  db_id BIGINT PRIMARY KEY REFERENCES dbs(id) ON DELETE CASCADE,
  table_key TEXT NOT NULL,
  after_id BIGINT NOT NULL
);
`,
  },
]
