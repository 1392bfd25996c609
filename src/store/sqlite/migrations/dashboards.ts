import type {Migration} from '../../migrations/types.js'

/** Migrations of the dashboards area: ids 30..39 are reserved for it. */
export const migrations: Migration[] = [
  {
    id: 30,
    name: 'dashboards and per-user selections',
    up: `
CREATE TABLE dashboards (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  context TEXT NOT NULL,
  layout TEXT NOT NULL DEFAULT '[]',
  shared INTEGER NOT NULL DEFAULT 0,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_by_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK (is_default = 0 OR shared = 1)
);
CREATE INDEX dashboards_account_context ON dashboards(account_id, context);
CREATE UNIQUE INDEX dashboards_one_default ON dashboards(account_id, context) WHERE is_default = 1;
CREATE TABLE dashboard_selections (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  context TEXT NOT NULL,
  dashboard_id INTEGER REFERENCES dashboards(id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, context)
);
CREATE INDEX dashboard_selections_dashboard ON dashboard_selections(dashboard_id);
`,
  },
]
