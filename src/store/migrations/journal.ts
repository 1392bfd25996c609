import type {Migration} from './types.js'

/** What the DDL of the journal leaves to each driver. */
export interface JournalDdl {
  /** The sequence column: SQLite's `INTEGER PRIMARY KEY`, PostgreSQL's bigint identity. */
  seq: string
  /** Applied to the whole statement text (PostgreSQL: every TEXT compares by code point). */
  text: (sql: string) => string
  /** What the driver adds (PostgreSQL: the trigger that numbers entries at commit). */
  extra?: string
}

/**
 * The journal (docs/history.md), written once for both drivers: one row per write, appended in the
 * write's transaction. `pos` is the entry's place (its bookmark): the order entries commit in
 * (SQLite, one writer: the next number at insert; PostgreSQL: drawn at commit, see below). `seq`
 * only identifies the row. `state` is the row written (for a delete: the row deleted), as JSON text,
 * secrets left out; `gone` says the resource does not exist after it; `parent_id` is a record's db. Entries are only ever inserted, and removed by
 * retention (oldest first, a resource's newest versions kept).
 */
export const journalMigration = (ddl: JournalDdl): Migration => ({
  id: 70,
  name: 'journal: every write of prompts, dashboards, apps, dbs, records, flow resources and crons, with its door and actor',
  up: ddl.text(`
CREATE TABLE journal (
  seq ${ddl.seq},
  pos BIGINT,
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
CREATE INDEX journal_pos ON journal(pos);
CREATE INDEX journal_account ON journal(account_id, pos);
CREATE INDEX journal_resource ON journal(account_id, kind, resource_id, pos);
CREATE INDEX journal_at ON journal(at, pos);
`) + (ddl.extra ?? ''),
})

/**
 * PostgreSQL: a number drawn at insert is not commit order (a reader resuming after N would miss an
 * N-1 that commits later). A deferred constraint trigger runs as the transaction commits: it takes
 * one transaction lock and draws `pos` from a sequence, so positions are handed out in the order
 * the transactions commit, the lock held only from there to the end of the commit, server-side
 * (docs/history.md "Order under N instances").
 */
export const PG_JOURNAL_POS = `
CREATE SEQUENCE journal_pos_seq;
CREATE FUNCTION svc_journal_pos() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('svc:journal-pos'));
  UPDATE journal SET pos = nextval('journal_pos_seq') WHERE seq = NEW.seq;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER journal_pos AFTER INSERT ON journal DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION svc_journal_pos();
`

/**
 * The journal notified (live feeds, docs/realtime.md "N instances"): each entry's commit also
 * notifies `svc_journal` with its bookmark (sent when the transaction commits, in commit order), so
 * every instance's feed hub reads new entries at once instead of polling. The bookmark only: the
 * entry is read from the journal, once per instance. SQLite's one process tells its readers itself.
 */
export const journalNotify = (pg: boolean): Migration => ({
  id: 76,
  name: 'journal notified: each committed entry tells the listening instances its bookmark',
  up: pg ? `
CREATE OR REPLACE FUNCTION svc_journal_pos() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  drawn BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('svc:journal-pos'));
  UPDATE journal SET pos = nextval('journal_pos_seq') WHERE seq = NEW.seq RETURNING pos INTO drawn;
  PERFORM pg_notify('svc_journal', drawn::text);
  RETURN NULL;
END $$;
` : '',
})
