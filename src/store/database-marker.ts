/**
 * `DIR/database.json`: the record, left in a data dir by `svc serve --database-url`, that the dir
 * goes with a PostgreSQL database. It names the database (host, port, name) and never holds the
 * user, the password or any parameter of the URL. With it, a command given the dir without the
 * database URL refuses to create a SQLite file there (which no server would read: a user added to
 * it would get a token every instance answers 401) unless told so with `--sqlite`.
 */
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {SvcError} from '../core/errors.js'
import {dataFile} from './sqlite/connection.js'

export const DATABASE_MARKER = 'database.json'

interface Marker {
  driver: 'postgresql'
  /** `host:port/name`, no credentials. */
  database: string
}

/** `host:port/name` of a database URL, never its user or password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.host}${u.pathname}`
  } catch {
    return 'database URL'
  }
}

/** Records in the data dir that it goes with this database (written again only when it changed). */
export function writeDatabaseMarker(dataDir: string, databaseUrl: string): void {
  const text = JSON.stringify({driver: 'postgresql', database: describeDatabaseUrl(databaseUrl)} satisfies Marker, null, 2) + '\n'
  const path = join(dataDir, DATABASE_MARKER)
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return
  mkdirSync(dataDir, {recursive: true})
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, text, {mode: 0o644})
  renameSync(tmp, path)
}

/** The database the data dir was recorded with, or null (no record, or one that is not ours). */
export function readDatabaseMarker(dataDir: string): Marker | null {
  try {
    const value = JSON.parse(readFileSync(join(dataDir, DATABASE_MARKER), 'utf8')) as Partial<Marker>
    return value && typeof value.database === 'string' ? {driver: 'postgresql', database: value.database} : null
  } catch {
    return null
  }
}

/**
 * A usage error when opening the SQLite store would create `svc.sqlite` in a data dir recorded as
 * a PostgreSQL server's, unless `sqlite` (the `--sqlite` flag) says that is meant.
 */
export function refuseNewSqlite(dataDir: string, sqlite = false): void {
  if (sqlite || existsSync(dataFile(dataDir))) return
  const marker = readDatabaseMarker(dataDir)
  if (!marker) return
  throw new SvcError('usage', 0,
    `${dataDir} is the data dir of servers on the PostgreSQL database ${marker.database} (${DATABASE_MARKER}), and no database URL was given`,
    undefined, 'pass --database-url postgres://… (or set SVC_DATABASE_URL, as in /etc/svc.env), or --sqlite to start a separate SQLite database in this dir')
}
