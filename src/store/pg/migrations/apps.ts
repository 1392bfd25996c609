import type {Migration} from '../../migrations/types.js'
import {binaryText} from './dialect.js'

export const migrations: Migration[] = [
  {
    id: 40,
    name: 'apps and the content-addressed compile cache',
    up: binaryText(`
CREATE TABLE apps (
  id TEXT PRIMARY KEY,
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  url_code TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  app_engine TEXT NOT NULL,
  css_engine TEXT NOT NULL,
  source_code TEXT NOT NULL,
  public INTEGER NOT NULL DEFAULT 0,
  active INTEGER NOT NULL DEFAULT 1,
  db_code TEXT,
  show_in_module TEXT,
  prompt TEXT,
  actions TEXT NOT NULL DEFAULT '[]',
  fields TEXT NOT NULL DEFAULT '{}',
  config TEXT NOT NULL DEFAULT '{}',
  app_code TEXT NOT NULL DEFAULT '',
  css_code TEXT NOT NULL DEFAULT '',
  build_hash TEXT NOT NULL DEFAULT '',
  app_build_time BIGINT NOT NULL DEFAULT 0,
  css_build_time BIGINT NOT NULL DEFAULT 0,
  token TEXT NOT NULL,
  created_by_id BIGINT NOT NULL,
  updated_by_id BIGINT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (account_id, url_code)
);
CREATE INDEX apps_url_code ON apps(url_code);
CREATE TABLE app_builds (
  hash TEXT PRIMARY KEY,
  app_code TEXT NOT NULL,
  css_code TEXT NOT NULL,
  app_build_time BIGINT NOT NULL,
  css_build_time BIGINT NOT NULL,
  created_at TEXT NOT NULL
);
`),
  },
  {
    id: 41,
    name: 'app assets (images, sounds, fonts, data an app loads by a relative URL)',
    up: binaryText(`
CREATE TABLE app_assets (
  app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  data TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (app_id, path)
);
`),
  },
]
