/**
 * Backups: `backup` writes an archive of a store (online: one read snapshot, no write lock),
 * `restore` fills an empty store from one (any store from any store: SQLite ↔ PostgreSQL), `verify`
 * checks an archive whole and restores it into a scratch SQLite file to count what comes back.
 * docs/backups.md.
 */
import {existsSync, readFileSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {SvcError} from '../../core/errors.js'
import {PACKAGE_ROOT} from '../../paths.js'
import {dataFile, openStoreAt, type StoreTarget} from '../../store/index.js'
import {SECRET_COLUMNS, type CellValue, type StoreLoader, type StoreSnapshot, type TableShape} from '../../store/backup/types.js'
import {ARCHIVE_FORMAT, ARCHIVE_VERSION, ArchiveWriter, readArchive, type ArchiveHeader, type ArchiveManifest} from './archive.js'
import {planPointInTime, pointInTimeTable, type PointInTimePlan} from './point-in-time.js'
import {newSecretBox, openSecretBox, type SecretBox} from './secrets.js'

const BATCH = 1000

export interface BackupOptions {
  /** Carry secrets, encrypted with this passphrase; without it they are left out. */
  passphrase?: string
  /** Rows written so far, and of which table (for a progress bar). */
  onRows?: (rowsSoFar: number, table: string) => void
  /** Called with the row counts of the source's tables before the rows are read (a progress bar's total). */
  onTotal?: (rows: number) => void
  /**
   * How much runs at once: blocks compressed on the thread pool, and PostgreSQL connections reading
   * big tables on the one snapshot. 1 keeps a backup to about one core beside the reading (a served
   * backup: the server's requests come first); the default is 1 (defaultParallelism).
   */
  parallel?: number
  /** PostgreSQL's parallel readers: rows a connection reads at a time (10,000; tests make it small to cut small tables in ranges). */
  rangeRows?: number
  /** Uncompressed bytes a gzip member holds (1 MB; tests make it small to write many). */
  blockBytes?: number
}

/**
 * The default parallelism of a backup: one job (one connection; one block compressed beside the
 * reading). More is for a machine with idle cores: on the busy two-core machine it was measured on,
 * two jobs took longer than one in every PostgreSQL run and most SQLite runs (docs/benchmarks.md, "Backups").
 */
export function defaultParallelism(): number {
  return 1
}

export interface BackupResult {
  file: string
  store: 'sqlite' | 'pg'
  tables: Record<string, number>
  rows: number
  bytes: number
  sha256: string
  secrets: 'encrypted' | 'left out'
  created_at: string
  duration_ms: number
}

export function svcVersion(): string {
  try {
    return JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version as string
  } catch {
    return 'unknown'
  }
}

export async function snapshotOf(target: StoreTarget): Promise<StoreSnapshot> {
  if (target.databaseUrl) {
    const {pgSnapshot} = await import('../../store/backup/pg.js')
    return pgSnapshot(target.databaseUrl)
  }
  if (!existsSync(dataFile(target.dataDir))) {
    throw new SvcError('usage', 0, `no svc data in ${target.dataDir}`, undefined, 'pass --data DIR (the dir `svc serve` uses) or --database-url URL')
  }
  const {sqliteSnapshot} = await import('../../store/backup/sqlite.js')
  return sqliteSnapshot(target.dataDir)
}

/** Secret columns of a table as positions in its columns. */
export function secretPositions(table: TableShape): number[] {
  return (SECRET_COLUMNS[table.name] ?? []).map((c) => table.columns.indexOf(c)).filter((i) => i >= 0)
}

/** A row's secrets sealed, or left out (null; a row that is nothing but a secret is left out whole). */
export function guardSecrets(rows: CellValue[][], positions: number[], table: string, box: SecretBox | undefined): CellValue[][] {
  if (!positions.length) return rows
  if (!box && table === 'server_secrets') return []
  return rows.map((row) => {
    const out = [...row]
    for (const i of positions) out[i] = out[i] === null ? null : box ? box.seal(String(out[i])) : null
    return out
  })
}

/** Writes an archive of the store `source` to `file` (through FILE.partial; nothing is left on failure). */
export async function backup(source: StoreTarget, file: string, options: BackupOptions = {}): Promise<BackupResult> {
  const started = Date.now()
  const out = resolve(file)
  // Read before the snapshot begins: every write the archive holds was made before it (a point in
  // time is answered up to this moment, point-in-time.ts).
  const createdAt = new Date().toISOString()
  const snapshot = await snapshotOf(source)
  const box = options.passphrase ? newSecretBox(options.passphrase) : undefined
  const parallel = Math.max(1, Math.floor(options.parallel ?? defaultParallelism()))
  const writer = new ArchiveWriter(out, {compressJobs: parallel, blockBytes: options.blockBytes})
  try {
    const header: ArchiveHeader = {
      format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, svc_version: svcVersion(), store: snapshot.driver,
      created_at: createdAt, migrations: await snapshot.migrations(), secrets: box?.header ?? null,
    }
    await writer.header(header)
    const tables = await snapshot.tables()
    if (options.onTotal) {
      let total = 0
      for (const table of tables) total += await snapshot.count(table)
      options.onTotal(total)
    }
    let done = 0
    for (const table of tables) {
      const positions = secretPositions(table)
      if (!positions.length && snapshot.lineChunks) {
        await writer.tableChunks(table.name, table.columns, snapshot.lineChunks(table, {readers: parallel, rangeRows: options.rangeRows}), (n) => {
          done += n
          options.onRows?.(done, table.name)
        })
        continue
      }
      // (SQLite's json_array takes at most 100 arguments in some builds.)
      if (!positions.length && snapshot.lines && table.columns.length <= 100) {
        await writer.tableLines(table.name, table.columns, snapshot.lines(table, BATCH), (n) => {
          done += n
          options.onRows?.(done, table.name)
        })
        continue
      }
      const batches = (async function* () {
        for await (const rows of snapshot.rows(table, BATCH)) yield guardSecrets(rows, positions, table.name, box)
      })()
      await writer.table(table.name, table.columns, batches, (n) => {
        done += n
        options.onRows?.(done, table.name)
      })
    }
    const manifest = await writer.finish()
    return {
      file: out, store: snapshot.driver, tables: manifest.tables, rows: manifest.rows, bytes: writer.bytes, sha256: manifest.sha256,
      secrets: box ? 'encrypted' : 'left out', created_at: createdAt, duration_ms: Date.now() - started,
    }
  } catch (error) {
    await writer.abort()
    throw asDiskError(error)
  } finally {
    await snapshot.close()
  }
}

export function asDiskError(error: unknown): unknown {
  const code = (error as {code?: string}).code
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new SvcError('storage_full', 507, 'no space left for the archive; nothing was written (the partial file was removed)')
  }
  if (code === 'EACCES' || code === 'ENOENT' || code === 'EISDIR') {
    return new SvcError('usage', 0, `cannot write the archive: ${(error as Error).message}`)
  }
  return error
}

export interface RestoreOptions {
  /** Empty a non-empty target first (everything in it is replaced). */
  force?: boolean
  passphrase?: string
  onRows?: (rowsSoFar: number, table: string) => void
  /** The archive file's bytes read so far (a progress bar's measure: the row count is known only at the end). */
  onBytes?: (bytesRead: number) => void
  /** Restore the state at this time (ISO 8601): the archive rolled back with its journal (docs/backups.md "Point in time"). */
  at?: string
}

export interface RestoreResult {
  target: string
  store: 'sqlite' | 'pg'
  from_store: 'sqlite' | 'pg'
  tables: Record<string, number>
  rows: number
  secrets: 'restored' | 'left out'
  created_at: string
  duration_ms: number
  /** With `at`: the time restored, and what the journal changed back. */
  point_in_time?: {at: string; from: string; until: string; changed: Record<string, {version: number; absent: number}>; journal_entries_after: number}
}

export async function loaderOf(target: StoreTarget): Promise<StoreLoader> {
  // Opening the store creates and migrates it; the loader then fills it in one transaction.
  const store = await openStoreAt({...target, sqlite: target.databaseUrl ? undefined : true})
  await store.close()
  if (target.databaseUrl) {
    const {pgLoader} = await import('../../store/backup/pg.js')
    return pgLoader(target.databaseUrl)
  }
  const {sqliteLoader} = await import('../../store/backup/sqlite.js')
  return sqliteLoader(target.dataDir)
}

/**
 * Fills the store `target` from the archive `file`: refused when the target holds data (unless
 * `force`), when the archive is damaged or from an svc with migrations this one lacks; committed
 * only after the archive's checksum was checked, so a refused restore writes nothing.
 */
export async function restore(file: string, target: StoreTarget, options: RestoreOptions = {}): Promise<RestoreResult> {
  const started = Date.now()
  let lines = readArchive(resolve(file), BATCH, options.onBytes)
  const first = await lines.next()
  if (first.done || first.value.kind !== 'header') throw new SvcError('usage', 0, 'the archive is damaged: no header; nothing was written')
  const header = first.value.header
  if (header.account) {
    await lines.return(undefined)
    throw new SvcError('usage', 0, `the archive is an export of one account ("${header.account.name}"), not a whole server's backup; nothing was written`,
      undefined, 'import it with: svc admin import FILE (into a new account, ids renumbered)')
  }
  // A wrong passphrase is told before the target is touched.
  const box = header.secrets && options.passphrase ? openSecretBox(header.secrets, options.passphrase) : undefined
  // A point in time is planned (and a time the archive cannot answer refused) before the target is touched too.
  let plan: PointInTimePlan | undefined
  if (options.at !== undefined) {
    await lines.return(undefined)
    plan = await planPointInTime(resolve(file), header, options.at)
    lines = readArchive(resolve(file), BATCH, options.onBytes)
    await lines.next()
  }
  const newSqliteFile = !target.databaseUrl && !existsSync(dataFile(target.dataDir))
  const loader = await loaderOf(target)
  let committed = false
  try {
    // Each driver numbers its migrations from one list (a driver skips what it does not need): an
    // archive from either store restores into an svc whose newest migration is at least as new.
    const newest = Math.max(0, ...(await loader.migrations()))
    const newer = header.migrations.filter((id) => id > newest)
    if (newer.length) {
      throw new SvcError('usage', 0, `the archive comes from a newer svc (${header.svc_version}: migrations ${newer.join(', ')} are unknown here); nothing was written`,
        undefined, 'restore it with that svc version or a later one')
    }
    if (!(await loader.isEmpty())) {
      if (!options.force) {
        throw new SvcError('usage', 0, 'the target already holds data; nothing was written', undefined,
          'restore into a new data dir or an empty database, or pass --force to replace everything in it')
      }
      await loader.clear()
    }
    await loader.bulkLoad()
    const shapes = new Map((await loader.tables()).map((t) => [t.name, t]))
    let table: TableShape | undefined
    let positions: number[] = []
    let done = 0
    let manifest: ArchiveManifest | undefined
    let rollBack: ReturnType<typeof pointInTimeTable> | undefined
    const insert = async (rows: CellValue[][]) => {
      if (positions.length && header.secrets) {
        if (box) rows = rows.map((row) => row.map((v, i) => (positions.includes(i) && typeof v === 'string' ? box.open(v) : v)))
        else rows = guardSecrets(rows, positions, table!.name, undefined)
      }
      if (rows.length) await loader.insert(table!, rows)
    }
    for await (const line of lines) {
      if (line.kind === 'table') {
        const shape = shapes.get(line.name)
        const unknown = shape ? line.columns.filter((c) => !shape.columns.includes(c)) : line.columns
        if (!shape || unknown.length) {
          throw new SvcError('usage', 0, `the archive holds ${shape ? `columns ${unknown.join(', ')} of ` : ''}table ${line.name}, unknown to this svc; nothing was written`)
        }
        table = {name: line.name, columns: line.columns}
        positions = secretPositions(table)
        rollBack = plan ? pointInTimeTable(plan, table.name, table.columns) : undefined
      } else if (line.kind === 'rows' && table) {
        await insert(rollBack ? rollBack.rows(line.rows) : line.rows)
        done += line.rows.length
        options.onRows?.(done, table.name)
      } else if (line.kind === 'end' && table && rollBack) {
        // Rows at T that the archive no longer holds (deleted since): from their journal entries.
        await insert(rollBack.rest())
      } else if (line.kind === 'manifest') {
        manifest = line.manifest
      }
    }
    if (!manifest) throw new SvcError('usage', 0, 'the archive is damaged: no manifest; nothing was written')
    await loader.commit()
    committed = true
    return {
      target: target.databaseUrl ? 'postgres' : target.dataDir, store: loader.driver, from_store: header.store, tables: manifest.tables,
      rows: manifest.rows, secrets: header.secrets && box ? 'restored' : 'left out', created_at: header.created_at, duration_ms: Date.now() - started,
      ...(plan ? {point_in_time: {at: plan.at, from: plan.range.from!, until: plan.range.until, changed: plan.changed, journal_entries_after: plan.laterEntries}} : {}),
    }
  } catch (error) {
    if (!committed) {
      await loader.rollback()
      if (newSqliteFile) await removeSqliteFiles(target.dataDir)
    }
    throw error
  }
}

export async function removeSqliteFiles(dataDir: string): Promise<void> {
  const file = dataFile(dataDir)
  for (const suffix of ['', '-wal', '-shm']) await rm(`${file}${suffix}`, {force: true})
}

export interface VerifyResult {
  file: string
  ok: true
  store: 'sqlite' | 'pg'
  svc_version: string
  created_at: string
  tables: Record<string, number>
  rows: number
  sha256: string
  secrets: 'encrypted' | 'left out'
  /** An account export's account (verified by importing it into a scratch file). */
  account?: {id: number; name: string}
}

/** Reads the archive whole (structure, counts, checksum), restores it into a scratch SQLite file and counts what came back. */
export async function verify(file: string, options: {passphrase?: string} = {}): Promise<VerifyResult> {
  const scratch = await mkdtemp(join(tmpdir(), 'svc-verify-'))
  try {
    const peek = readArchive(resolve(file), BATCH)
    const first = await peek.next().catch(() => undefined)
    await peek.return(undefined)
    if (first && !first.done && first.value.kind === 'header' && first.value.header.account) {
      // An account export: imported into a scratch file as a new account, every table counted.
      const header = first.value.header
      const {importAccount} = await import('./account.js')
      const imported = await importAccount(file, {dataDir: scratch}, {passphrase: options.passphrase, withTokens: true})
      return {
        file: resolve(file), ok: true, store: header.store, svc_version: header.svc_version, created_at: header.created_at,
        tables: imported.tables, rows: imported.rows, sha256: imported.sha256, secrets: header.secrets ? 'encrypted' : 'left out',
        account: header.account,
      }
    }
    const restored = await restore(file, {dataDir: scratch}, {passphrase: options.passphrase})
    const snapshot = await snapshotOf({dataDir: scratch})
    let header: ArchiveHeader | undefined
    let sha256 = ''
    for await (const line of readArchive(resolve(file), BATCH)) {
      if (line.kind === 'header') header = line.header
      if (line.kind === 'manifest') sha256 = line.manifest.sha256
    }
    try {
      for (const table of await snapshot.tables()) {
        let n = 0
        for await (const rows of snapshot.rows(table, BATCH)) n += rows.length
        // The server's secrets are left out of a restore without the passphrase: nothing to count there.
        if (table.name === 'server_secrets' && restored.secrets === 'left out') continue
        const expected = restored.tables[table.name] ?? 0
        if (n !== expected) {
          throw new SvcError('usage', 0, `the archive did not restore whole: ${table.name} came back with ${n} rows of ${expected}`)
        }
      }
    } finally {
      await snapshot.close()
    }
    return {
      file: resolve(file), ok: true, store: restored.from_store, svc_version: header!.svc_version, created_at: restored.created_at,
      tables: restored.tables, rows: restored.rows, sha256, secrets: header!.secrets ? 'encrypted' : 'left out',
    }
  } finally {
    await rm(scratch, {recursive: true, force: true})
  }
}
