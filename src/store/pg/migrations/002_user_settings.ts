import type {Migration} from '../../migrations/types.js'
import {binaryText} from './dialect.js'

/** Per-user settings of the console (a grid's hidden and ordered columns, …): key → JSON text. */
export const migration: Migration = {
  id: 2,
  name: 'user settings',
  up: binaryText(`
CREATE TABLE user_settings (
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, key)
);
`),
}
