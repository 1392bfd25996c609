import type {Migration} from '../../migrations/types.js'

/** Migrations of the dbs area: ids 50..59 are reserved for it. */
export const migrations: Migration[] = [
  {
    id: 50,
    name: 'json databases, records with index columns, trigram full-text index',
    up: `
CREATE TABLE dbs (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
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
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL,
  db_id INTEGER NOT NULL REFERENCES dbs(id) ON DELETE CASCADE,
  table_name TEXT,
  data TEXT NOT NULL,
  idx_str_1 TEXT, idx_str_2 TEXT, idx_str_3 TEXT,
  idx_int_1 INTEGER, idx_int_2 INTEGER,
  idx_time_1 TEXT, idx_time_2 TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX db_records_table ON db_records(db_id, table_name);
CREATE INDEX db_records_str_1 ON db_records(db_id, table_name, idx_str_1) WHERE idx_str_1 IS NOT NULL;
CREATE INDEX db_records_str_2 ON db_records(db_id, table_name, idx_str_2) WHERE idx_str_2 IS NOT NULL;
CREATE INDEX db_records_str_3 ON db_records(db_id, table_name, idx_str_3) WHERE idx_str_3 IS NOT NULL;
CREATE INDEX db_records_int_1 ON db_records(db_id, table_name, idx_int_1) WHERE idx_int_1 IS NOT NULL;
CREATE INDEX db_records_int_2 ON db_records(db_id, table_name, idx_int_2) WHERE idx_int_2 IS NOT NULL;
CREATE INDEX db_records_time_1 ON db_records(db_id, table_name, idx_time_1) WHERE idx_time_1 IS NOT NULL;
CREATE INDEX db_records_time_2 ON db_records(db_id, table_name, idx_time_2) WHERE idx_time_2 IS NOT NULL;
CREATE VIRTUAL TABLE db_records_fts USING fts5(content, tokenize = 'trigram', content = '', contentless_delete = 1);
CREATE TRIGGER db_records_fts_insert AFTER INSERT ON db_records BEGIN
  INSERT INTO db_records_fts (rowid, content)
    SELECT new.id, coalesce(group_concat(value, char(10)), '') FROM json_each(new.data) WHERE type IN ('text', 'integer', 'real');
END;
CREATE TRIGGER db_records_fts_update AFTER UPDATE OF data ON db_records BEGIN
  DELETE FROM db_records_fts WHERE rowid = old.id;
  INSERT INTO db_records_fts (rowid, content)
    SELECT new.id, coalesce(group_concat(value, char(10)), '') FROM json_each(new.data) WHERE type IN ('text', 'integer', 'real');
END;
CREATE TRIGGER db_records_fts_delete AFTER DELETE ON db_records BEGIN
  DELETE FROM db_records_fts WHERE rowid = old.id;
END;
`,
  },
  {
    id: 51,
    name: 'full-text index written in batches: writes queue the record id, the indexer adds queued records to the trigram index',
    up: `
DROP TRIGGER db_records_fts_insert;
DROP TRIGGER db_records_fts_update;
DROP TRIGGER db_records_fts_delete;
CREATE TABLE db_records_fts_pending (id INTEGER PRIMARY KEY);
CREATE TRIGGER db_records_fts_insert AFTER INSERT ON db_records BEGIN
  INSERT INTO db_records_fts_pending (id) VALUES (new.id);
END;
CREATE TRIGGER db_records_fts_update AFTER UPDATE OF data ON db_records BEGIN
  DELETE FROM db_records_fts WHERE rowid = old.id;
  INSERT OR IGNORE INTO db_records_fts_pending (id) VALUES (new.id);
END;
CREATE TRIGGER db_records_fts_delete AFTER DELETE ON db_records BEGIN
  DELETE FROM db_records_fts WHERE rowid = old.id;
  DELETE FROM db_records_fts_pending WHERE id = old.id;
END;
`,
  },
  {
    id: 52,
    name: 'search text stored beside the record: the trigram index\'s recheck reads a column instead of walking the JSON',
    // PostgreSQL only (its trigram recheck). SQLite's FTS5 trigram table holds its own copy of the text.
    up: '',
  },
  {
    id: 53,
    name: 'index columns indexed whole: a sort by one walks its index, records without a value included',
    // The partial indexes (WHERE idx IS NOT NULL) could not serve ORDER BY idx, id (records without a
    // value sort first ascending): every page of a sorted grid sorted the whole table (0.4 s at 1M).
    // PostgreSQL's indexes were whole from the start (NULLS FIRST).
    up: `
DROP INDEX db_records_str_1;
CREATE INDEX db_records_str_1 ON db_records(db_id, table_name, idx_str_1);
DROP INDEX db_records_str_2;
CREATE INDEX db_records_str_2 ON db_records(db_id, table_name, idx_str_2);
DROP INDEX db_records_str_3;
CREATE INDEX db_records_str_3 ON db_records(db_id, table_name, idx_str_3);
DROP INDEX db_records_int_1;
CREATE INDEX db_records_int_1 ON db_records(db_id, table_name, idx_int_1);
DROP INDEX db_records_int_2;
CREATE INDEX db_records_int_2 ON db_records(db_id, table_name, idx_int_2);
DROP INDEX db_records_time_1;
CREATE INDEX db_records_time_1 ON db_records(db_id, table_name, idx_time_1);
DROP INDEX db_records_time_2;
CREATE INDEX db_records_time_2 ON db_records(db_id, table_name, idx_time_2);
`,
  },
  {
    id: 54,
    name: 'record counts kept per db and table: a count reads one row instead of the whole table',
    // count(*) of a db's records scanned its index on the server's one thread: ~280 ms at 1M records
    // for every db list, db read and usage. Triggers keep the counts in the record writes' own
    // transactions. table_key is the table name, '' for a db without tables (NULL in db_records).
    // PostgreSQL counts as before: its count does not hold the server's thread, and a counter row
    // would queue a db's concurrent creates behind each other's commits.
    up: `
CREATE TABLE db_record_counts (
  db_id INTEGER NOT NULL REFERENCES dbs(id) ON DELETE CASCADE,
  table_key TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (db_id, table_key)
) WITHOUT ROWID;
INSERT INTO db_record_counts (db_id, table_key, n)
  SELECT db_id, coalesce(table_name, ''), count(*) FROM db_records GROUP BY db_id, coalesce(table_name, '');
CREATE TRIGGER db_records_count_insert AFTER INSERT ON db_records BEGIN
  INSERT INTO db_record_counts (db_id, table_key, n) VALUES (new.db_id, coalesce(new.table_name, ''), 1)
    ON CONFLICT (db_id, table_key) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER db_records_count_delete AFTER DELETE ON db_records BEGIN
  UPDATE db_record_counts SET n = n - 1 WHERE db_id = old.db_id AND table_key = coalesce(old.table_name, '');
END;
CREATE TRIGGER db_records_count_move AFTER UPDATE OF db_id, table_name ON db_records
  WHEN old.db_id IS NOT new.db_id OR old.table_name IS NOT new.table_name BEGIN
  UPDATE db_record_counts SET n = n - 1 WHERE db_id = old.db_id AND table_key = coalesce(old.table_name, '');
  INSERT INTO db_record_counts (db_id, table_key, n) VALUES (new.db_id, coalesce(new.table_name, ''), 1)
    ON CONFLICT (db_id, table_key) DO UPDATE SET n = n + 1;
END;
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
  db_id INTEGER PRIMARY KEY REFERENCES dbs(id) ON DELETE CASCADE,
  table_key TEXT NOT NULL,
  after_id INTEGER NOT NULL
);
`,
  },
]
