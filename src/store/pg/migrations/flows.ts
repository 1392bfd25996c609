import type {Migration} from '../../migrations/types.js'
import {binaryText, ID} from './dialect.js'

export const migrations: Migration[] = [
  {
    id: 60,
    name: 'flows: resources (connectors, flows), flow processes, crons',
    up: binaryText(`
CREATE TABLE resources (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  code TEXT NOT NULL,
  name TEXT NOT NULL,
  url TEXT,
  secret_token TEXT,
  fields TEXT NOT NULL DEFAULT '{}',
  created_by_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (account_id, kind, code)
);
-- Public connector methods are called as /svc/connector/:code/:method without an account: one code per server.
CREATE UNIQUE INDEX resources_connector_code ON resources(code) WHERE kind = 'svc/custom_connector';
CREATE TABLE flow_processes (
  seq ${ID},
  id TEXT NOT NULL UNIQUE,
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  flow_id BIGINT REFERENCES resources(id) ON DELETE SET NULL,
  flow_code TEXT NOT NULL,
  status TEXT NOT NULL,
  trigger_kind TEXT NOT NULL,
  cron_id BIGINT,
  app_id TEXT,
  action TEXT,
  user_id BIGINT,
  input TEXT NOT NULL,
  output TEXT,
  error TEXT,
  steps INTEGER NOT NULL DEFAULT 0,
  runner TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  duration_ms BIGINT,
  created_at TEXT NOT NULL
);
CREATE INDEX flow_processes_account ON flow_processes(account_id, seq);
CREATE INDEX flow_processes_pending ON flow_processes(status) WHERE status = 'pending';
CREATE TABLE crons (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind TEXT NOT NULL DEFAULT 'flow',
  target_code TEXT NOT NULL,
  schedule TEXT NOT NULL,
  timezone TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  next_run_at TEXT,
  last_run_at TEXT,
  last_flow_process_id TEXT,
  created_by_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX crons_account ON crons(account_id, id);
CREATE INDEX crons_due ON crons(next_run_at) WHERE active = 1;
`),
  },
  {
    id: 61,
    name: 'flows: the trace of a run (each executed step, bounded to 64 KB of JSON)',
    up: 'ALTER TABLE flow_processes ADD COLUMN trace TEXT',
  },
  {
    id: 62,
    name: 'flows: triggers on db changes (db, table, ops), the run of each change claimed once, the journal cursor',
    up: binaryText(`
CREATE TABLE db_triggers (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  db_id BIGINT NOT NULL,
  table_name TEXT,
  ops TEXT NOT NULL,
  target_code TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  after_pos BIGINT NOT NULL DEFAULT 0,
  created_by_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX db_triggers_account ON db_triggers(account_id, id);
CREATE INDEX db_triggers_active ON db_triggers(active);
ALTER TABLE flow_processes ADD COLUMN db_trigger_id BIGINT;
ALTER TABLE flow_processes ADD COLUMN change_pos BIGINT;
-- The claim of a change: one run per (trigger, journal position), whichever instance starts it.
CREATE UNIQUE INDEX flow_processes_change ON flow_processes(db_trigger_id, change_pos);
-- How far the change triggers read the journal (one row, moved by compare-and-set with the runs it starts).
CREATE TABLE change_cursor (
  name TEXT PRIMARY KEY,
  pos BIGINT NOT NULL,
  updated_at TEXT NOT NULL
);
`),
  },
]
