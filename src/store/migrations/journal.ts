import type {Migration} from './types.js'

/** What the DDL of the journal leaves to each driver. */
export interface JournalDdl {
  /** The sequence column: SQLite's `INTEGER PRIMARY KEY`, PostgreSQL's bigint identity. */
  seq: string
  /** Applied to the whole statement text (PostgreSQL: every TEXT compares by code point). */
  text: (sql: string) => string
}

/**
 * The journal (docs/history.md), written once for both drivers: one row per write, appended in the
 * write's transaction. `state` is the row written (for a delete: the row deleted), as JSON text,
 * secrets left out; `gone` says the resource does not exist after it; `parent_id` is a record's db. Entries are only ever inserted, and removed by
 * retention (oldest first, a resource's newest versions kept).
 */
export const journalMigration = (ddl: JournalDdl): Migration => ({
  id: 70,
  name: 'journal: every write of prompts, dashboards, apps, dbs, records, flow resources and crons, with its door and actor',
  up: ddl.text(`
CREATE TABLE journal (
  seq ${ddl.seq},
  account_id BIGINT NOT NULL,
  kind TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  parent_id TEXT,
  op TEXT NOT NULL,
  gone INTEGER NOT NULL DEFAULT 0,
  state TEXT,
  summary TEXT NOT NULL,
  door TEXT NOT NULL,
  client TEXT,
  actor_type TEXT NOT NULL,
  actor_id TEXT,
  actor_name TEXT,
  request_id TEXT,
  at TEXT NOT NULL
);
CREATE INDEX journal_account ON journal(account_id, seq);
CREATE INDEX journal_resource ON journal(account_id, kind, resource_id, seq);
CREATE INDEX journal_at ON journal(at, seq);
`),
})
