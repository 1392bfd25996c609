import type {Migration} from '../../migrations/types.js'

/** Migrations of the flows area: ids 60..69 are reserved for it. */
export const migrations: Migration[] = [
  {
    id: 60,
    name: 'flows: resources (connectors, flows), flow processes, crons',
    up: `
CREATE TABLE resources (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  code TEXT NOT NULL,
  name TEXT NOT NULL,
  url TEXT,
  secret_token TEXT,
  fields TEXT NOT NULL DEFAULT '{}',
  created_by_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (account_id, kind, code)
);
-- Public connector methods are called as /svc/connector/:code/:method without an account: one code per server.
CREATE UNIQUE INDEX resources_connector_code ON resources(code) WHERE kind = 'svc/custom_connector';
CREATE TABLE flow_processes (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  flow_id INTEGER REFERENCES resources(id) ON DELETE SET NULL,
  flow_code TEXT NOT NULL,
  status TEXT NOT NULL,
  trigger_kind TEXT NOT NULL,
  cron_id INTEGER,
  app_id TEXT,
  action TEXT,
  user_id INTEGER,
  input TEXT NOT NULL,
  output TEXT,
  error TEXT,
  steps INTEGER NOT NULL DEFAULT 0,
  runner TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  duration_ms INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX flow_processes_account ON flow_processes(account_id, seq);
CREATE INDEX flow_processes_pending ON flow_processes(status) WHERE status = 'pending';
CREATE TABLE crons (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind TEXT NOT NULL DEFAULT 'flow',
  target_code TEXT NOT NULL,
  schedule TEXT NOT NULL,
  timezone TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  next_run_at TEXT,
  last_run_at TEXT,
  last_flow_process_id TEXT,
  created_by_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX crons_account ON crons(account_id, id);
CREATE INDEX crons_due ON crons(next_run_at) WHERE active = 1;
`,
  },
  {
    id: 61,
    name: 'flows: the trace of a run (each executed step, bounded to 64 KB of JSON)',
    up: 'ALTER TABLE flow_processes ADD COLUMN trace TEXT',
  },
]
