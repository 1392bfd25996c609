import {migrations as apps} from './apps.js'
import {migrations as dashboards} from './dashboards.js'
import {migrations as dbs} from './dbs.js'
import {migrations as flows} from './flows.js'
import {migrations as prompts} from './prompts.js'
import {migration as accounts} from './001_accounts.js'
import {migration as cacheEpoch, notify as cacheEpochNotify} from './090_cache_epoch.js'
import {migration as userSettings} from './002_user_settings.js'
import type {Migration} from '../../migrations/types.js'
import {journalMigration, journalNotify} from '../../migrations/journal.js'


/** Every migration, ordered by id. Each area owns a block of ids (see the area's migrations.ts); 90.. run after every area's tables exist. */
export const MIGRATIONS: Migration[] = [accounts, userSettings, cacheEpoch, cacheEpochNotify, ...prompts, ...dashboards, ...apps, ...dbs, ...flows, journalMigration({seq: 'INTEGER PRIMARY KEY', text: (s) => s}), journalNotify(false)].sort((a, b) => a.id - b.id)
