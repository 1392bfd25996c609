import type {Migration} from '../../migrations/types.js'

/** Migrations of the prompts area: ids 20..29 are reserved for it. */
export const migrations: Migration[] = [
  {
    id: 20,
    name: 'prompts',
    up: `
CREATE TABLE prompts (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  code TEXT NOT NULL,
  content TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'chat' CHECK (kind IN ('chat', 'agent')),
  scope TEXT NOT NULL DEFAULT 'account' CHECK (scope IN ('user', 'team', 'department', 'account')),
  scope_id INTEGER,
  fields TEXT NOT NULL DEFAULT '{}',
  token TEXT NOT NULL,
  created_by_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX prompts_scope_code ON prompts(account_id, scope, ifnull(scope_id, 0), code);
CREATE INDEX prompts_account_code ON prompts(account_id, code);
`,
  },
]
