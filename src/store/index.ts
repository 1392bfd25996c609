/**
 * Opening the store: SQLite in a data dir (the embedded default), or PostgreSQL when a database
 * URL is given (`--database-url postgres://…` or `SVC_DATABASE_URL`). The PostgreSQL driver and
 * `pg` are imported only when a URL is given, so SQLite users and `svc --help` never load them.
 */
import {SvcError} from '../core/errors.js'
import {refuseNewSqlite} from './database-marker.js'
import {openSqliteStore} from './sqlite/index.js'
import type {Store} from './types.js'

export type {Store} from './types.js'
export {dataFile, openLocalPrompts, type LocalPrompts} from './local.js'

/** Where the data lives: a data dir (files beside the database; the SQLite file) and an optional PostgreSQL URL. */
export interface StoreTarget {
  dataDir: string
  /** `postgres://…` or `postgresql://…`: the PostgreSQL store; else the SQLite file of `dataDir`. */
  databaseUrl?: string
  /** `--sqlite`: create the SQLite file even in a data dir recorded as a PostgreSQL server's (src/store/database-marker.ts). */
  sqlite?: boolean
}

/** Opens the SQLite store of a data dir (`DIR/svc.sqlite`), running pending migrations. */
export function openStore(dataDir: string): Store {
  return openSqliteStore(dataDir)
}

/** Opens the PostgreSQL store at `url` (migrating once, whatever number of instances start together). */
export async function openPgStore(url: string, dataDir: string, options: {log?: (line: string) => void} = {}): Promise<Store> {
  const {openPostgresStore} = await import('./pg/index.js')
  return openPostgresStore(url, dataDir, options)
}

/** The store a target names: PostgreSQL when it has a database URL, else SQLite. */
export async function openStoreAt(target: StoreTarget & {log?: (line: string) => void}): Promise<Store> {
  if (target.databaseUrl && !isPostgresUrl(target.databaseUrl)) {
    throw new SvcError('usage', 0, 'the database URL must start with postgres:// or postgresql://', undefined,
      'leave --database-url / SVC_DATABASE_URL out to use the SQLite file of the data dir')
  }
  if (target.databaseUrl) return openPgStore(target.databaseUrl, target.dataDir, {log: target.log})
  refuseNewSqlite(target.dataDir, target.sqlite)
  return openSqliteStore(target.dataDir)
}

/** A usage check of a database URL: only PostgreSQL URLs are accepted. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}
