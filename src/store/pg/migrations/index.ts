/**
 * The PostgreSQL migrations: the same ids and names as SQLite's (src/store/sqlite/migrations/), in
 * PostgreSQL's dialect. Text columns use the "C" collation, so ordering and comparison are by
 * code point, as in SQLite; ids are bigint identities; booleans stay 0/1 integers and JSON stays
 * text as the SQLite rows hold them (the repositories read both drivers' rows alike; record data is
 * `json`, which keeps the client's key order, where jsonb would reorder it).
 */
import type {Migration} from '../../migrations/types.js'
import {journalMigration, journalNotify, PG_JOURNAL_POS} from '../../migrations/journal.js'
import {binaryText, ID} from './dialect.js'

import {migration as accounts} from './001_accounts.js'
import {migration as cacheEpoch, notify as cacheEpochNotify} from './090_cache_epoch.js'
import {migration as userSettings} from './002_user_settings.js'
import {migrations as apps} from './apps.js'
import {migrations as dashboards} from './dashboards.js'
import {migrations as dbs} from './dbs.js'
import {migrations as flows} from './flows.js'
import {migrations as prompts} from './prompts.js'

export const MIGRATIONS: Migration[] = [accounts, userSettings, cacheEpoch, cacheEpochNotify, ...prompts, ...dashboards, ...apps, ...dbs, ...flows, journalMigration({seq: ID, text: binaryText, extra: PG_JOURNAL_POS}), journalNotify(true)].sort((a, b) => a.id - b.id)
