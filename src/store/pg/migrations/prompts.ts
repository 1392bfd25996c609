import type {Migration} from '../../migrations/types.js'
import {binaryText} from './dialect.js'

export const migrations: Migration[] = [
  {
    id: 20,
    name: 'prompts',
    up: binaryText(`
CREATE TABLE prompts (
  id TEXT PRIMARY KEY,
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  code TEXT NOT NULL,
  content TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'chat' CHECK (kind IN ('chat', 'agent')),
  scope TEXT NOT NULL DEFAULT 'account' CHECK (scope IN ('user', 'team', 'department', 'account')),
  scope_id BIGINT,
  fields TEXT NOT NULL DEFAULT '{}',
  token TEXT NOT NULL,
  created_by_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX prompts_scope_code ON prompts(account_id, scope, coalesce(scope_id, 0), code);
CREATE INDEX prompts_account_code ON prompts(account_id, code);
`),
  },
]
