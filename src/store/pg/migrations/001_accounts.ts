import type {Migration} from '../../migrations/types.js'
import {binaryText, ID} from './dialect.js'

export const migration: Migration = {
  id: 1,
  name: 'accounts, users, teams, departments, groups, tokens, sessions',
  up: binaryText(`
CREATE TABLE accounts (
  id ${ID},
  name TEXT NOT NULL,
  settings TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE TABLE teams (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  UNIQUE (account_id, name)
);
CREATE TABLE departments (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  UNIQUE (account_id, name)
);
CREATE TABLE groups (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  UNIQUE (account_id, name)
);
CREATE TABLE users (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  login TEXT NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  name TEXT NOT NULL DEFAULT '',
  role TEXT NOT NULL DEFAULT 'user',
  permissions TEXT NOT NULL DEFAULT '[]',
  department_id BIGINT REFERENCES departments(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  UNIQUE (account_id, login)
);
CREATE TABLE user_teams (
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  team_id BIGINT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, team_id)
);
CREATE TABLE user_groups (
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_id BIGINT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, group_id)
);
CREATE TABLE tokens (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL DEFAULT 'api',
  expires_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX tokens_user ON tokens(user_id);
CREATE TABLE server_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
-- SQLite's ASCII-only case folding (LIKE, COLLATE NOCASE), whatever the database's locale.
CREATE FUNCTION svc_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN translate(t, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
`),
}
