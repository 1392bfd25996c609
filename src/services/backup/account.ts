/**
 * One account at a time (docs/backups.md "One account at a time"): `exportAccount` writes one
 * account's workspace in the archive format (its header names the account); `planImport` reads an
 * export whole and tells what an import would write into a target and what collides there;
 * `importAccount` writes it into a new account (or an existing empty one) in one transaction, every
 * integer id renumbered (src/core/backup/account-plan.ts), after checking the collisions again
 * inside that transaction. Nothing is written when anything collides.
 */
import {existsSync, statSync} from 'node:fs'
import {resolve} from 'node:path'
import {
  ACCOUNT_TABLES, accountTable, describeCollisions, globalKeys, Renumbering, unplannedTables, type Collision, type GlobalKey,
} from '../../core/backup/account-plan.js'
import {SvcError} from '../../core/errors.js'
import {dataFile, type StoreTarget} from '../../store/index.js'
import {accountName, accountState, lockNames, setAccountSettings, takenKeys} from '../../store/backup/account.js'
import type {StoreLoader, TableShape} from '../../store/backup/types.js'
import {ARCHIVE_FORMAT, ARCHIVE_VERSION, ArchiveWriter, readArchive, type ArchiveHeader} from './archive.js'
import {
  asDiskError, guardSecrets, loaderOf, removeSqliteFiles, secretPositions, snapshotOf, svcVersion, type BackupOptions, type BackupResult,
} from './index.js'
import {newSecretBox, openSecretBox, type SecretBox} from './secrets.js'
import {journalImported} from '../../store/journal/imported.js'

const BATCH = 1000

/** What a whole backup answers, and the account exported. */
export interface ExportResult extends BackupResult {
  account: {id: number; name: string}
}

/** Writes the workspace of account `accountId` of the store `source` to `file` (through FILE.partial). */
export async function exportAccount(source: StoreTarget, accountId: number, file: string, options: BackupOptions = {}): Promise<ExportResult> {
  const started = Date.now()
  const out = resolve(file)
  const snapshot = await snapshotOf(source)
  let writer: ArchiveWriter | undefined
  try {
    const name = await accountName(snapshot.sql, accountId)
    if (name === undefined) throw new SvcError('not_found', 404, `no account ${accountId} in the source`, undefined, 'list them with: svc admin account list')
    const account = {id: accountId, name}
    const shapes = new Map((await snapshot.tables()).map((t) => [t.name, t]))
    const unplanned = unplannedTables([...shapes.keys()])
    if (unplanned.length) {
      throw new SvcError('internal', 500, `this svc cannot export the tables ${unplanned.join(', ')} of an account yet (src/core/backup/account-plan.ts); nothing was written`)
    }
    const tables = ACCOUNT_TABLES.map((t) => shapes.get(t.name)).filter((t): t is TableShape => t !== undefined)
    const box = options.passphrase ? newSecretBox(options.passphrase) : undefined
    writer = new ArchiveWriter(out)
    const createdAt = new Date().toISOString()
    const header: ArchiveHeader = {
      format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, svc_version: svcVersion(), store: snapshot.driver,
      created_at: createdAt, migrations: await snapshot.migrations(), secrets: box?.header ?? null, account,
    }
    await writer.header(header)
    if (options.onTotal) {
      let total = 0
      for (const table of tables) total += await snapshot.count(table, {accountId})
      options.onTotal(total)
    }
    let done = 0
    for (const table of tables) {
      const positions = secretPositions(table)
      const batches = (async function* () {
        for await (const rows of snapshot.rows(table, BATCH, {accountId})) yield guardSecrets(rows, positions, table.name, box)
      })()
      await writer.table(table.name, table.columns, batches, (n) => {
        done += n
        options.onRows?.(done, table.name)
      })
    }
    const manifest = await writer.finish()
    return {
      file: out, store: snapshot.driver, account, tables: manifest.tables, rows: manifest.rows, bytes: writer.bytes, sha256: manifest.sha256,
      secrets: box ? 'encrypted' : 'left out', created_at: createdAt, duration_ms: Date.now() - started,
    }
  } catch (error) {
    await writer?.abort()
    throw asDiskError(error)
  } finally {
    await snapshot.close()
  }
}

export interface ImportOptions {
  /** Import into this existing account, which must hold nothing yet (default: a new account). */
  account?: number
  /** Carry the users' API tokens (their hashes) over: the tokens of the source then sign in on the target too. */
  withTokens?: boolean
  passphrase?: string
  /** The archive file's bytes read so far, of `total` (a progress bar: the rows are counted only at the end). */
  onBytes?: (bytesRead: number, total: number) => void
}

export interface ImportPlan {
  file: string
  /** Where it would go, as the target line says it. */
  from: {account: {id: number; name: string}; store: 'sqlite' | 'pg'; svc_version: string; created_at: string}
  /** The account written: a new one (its id known only once written), or the existing empty one given. */
  account: {id: number | null; name: string; new: boolean}
  /** Rows to write per table (before renumbering leaves out a setting of a db the export does not hold). */
  tables: Record<string, number>
  rows: number
  tokens: 'carried' | 'left out'
  secrets: 'restored' | 'left out'
  /** Codes, url_codes and ids the target holds already: an import refuses while there is any. */
  collisions: Collision[]
  sha256: string
}

export interface ImportResult extends Omit<ImportPlan, 'account' | 'collisions'> {
  account: {id: number; name: string; new: boolean}
  /** What could not be carried as it was (a user id inside a template's text, ...). */
  notes: string[]
  records_rewritten: number
  duration_ms: number
}

interface Scan {
  header: ArchiveHeader & {account: {id: number; name: string}}
  tables: Record<string, number>
  keys: GlobalKey[]
  sha256: string
}

/** Reads an export whole (structure, counts, checksum) and collects its server-wide values. */
async function scan(file: string, options: ImportOptions, onBytes?: (n: number) => void): Promise<Scan> {
  let header: ArchiveHeader | undefined
  let table: {name: string; columns: string[]} | undefined
  const keys: GlobalKey[] = []
  for await (const line of readArchive(file, BATCH, onBytes)) {
    if (line.kind === 'header') {
      header = line.header
      if (!header.account) {
        throw new SvcError('usage', 0, 'the archive is a whole server\'s backup, not an account export; nothing was written', undefined,
          'restore it with: svc admin restore FILE, or export one account with: svc admin export --account ID --out FILE')
      }
    } else if (line.kind === 'table') {
      if (!accountTable(line.name)) throw new SvcError('usage', 0, `the export holds table ${line.name}, which this svc does not import; nothing was written`)
      table = {name: line.name, columns: line.columns}
    } else if (line.kind === 'rows' && table) {
      if (table.name !== 'tokens' || options.withTokens) keys.push(...globalKeys(table.name, table.columns, line.rows))
    } else if (line.kind === 'manifest') {
      return {header: header as Scan['header'], tables: line.manifest.tables, keys, sha256: line.manifest.sha256}
    }
  }
  throw new SvcError('usage', 0, 'the archive is damaged: no manifest; nothing was written')
}

/** The account an import writes into, checked in the target (inside the loader's transaction). */
async function targetAccount(loader: StoreLoader, options: ImportOptions, scanned: Scan): Promise<{id: number | null; name: string; new: boolean}> {
  if (options.account === undefined) return {id: null, name: scanned.header.account.name, new: true}
  const tables = (await loader.tables()).map((t) => t.name).filter((name) => accountTable(name))
  const state = await accountState(loader.sql, options.account, tables)
  if (!state.exists) throw new SvcError('not_found', 404, `no account ${options.account} in the target; nothing was written`, undefined, 'leave --account out to import into a new account')
  if (!state.empty) {
    throw new SvcError('usage', 0, `account ${options.account} ("${state.name}") already holds data; nothing was written`, undefined,
      'import into a new account (leave --account out), or into an account that holds nothing yet')
  }
  return {id: options.account, name: state.name!, new: false}
}

async function checkMigrations(loader: StoreLoader, header: ArchiveHeader) {
  const newest = Math.max(0, ...(await loader.migrations()))
  const newer = header.migrations.filter((id) => id > newest)
  if (newer.length) {
    throw new SvcError('usage', 0, `the export comes from a newer svc (${header.svc_version}: migrations ${newer.join(', ')} are unknown here); nothing was written`,
      undefined, 'import it with that svc version or a later one')
  }
}

function plannedCounts(scanned: Scan, options: ImportOptions, account: {new: boolean}): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [name, n] of Object.entries(scanned.tables)) {
    if (name === 'tokens' && !options.withTokens) out[name] = 0
    else if (name === 'accounts') out[name] = account.new ? n : 0
    else out[name] = n
  }
  return out
}

/** Opens a loader on the target; `work` runs in its transaction, which is rolled back unless `work` commits. A new SQLite file is removed again unless committed. */
async function withLoader<T>(target: StoreTarget, work: (loader: StoreLoader, commit: () => Promise<void>) => Promise<T>): Promise<T> {
  const newSqliteFile = !target.databaseUrl && !existsSync(dataFile(target.dataDir))
  const loader = await loaderOf(target)
  let committed = false
  try {
    return await work(loader, async () => {
      await loader.commit()
      committed = true
    })
  } finally {
    if (!committed) {
      await loader.rollback()
      if (newSqliteFile) await removeSqliteFiles(target.dataDir)
    }
  }
}

/** The refusal of an import whose values are taken on the target: exit 1, the list in the message and in `details.collisions`. */
export function conflictError(collisions: Collision[]): SvcError {
  return new SvcError('conflict', 409,
    `${collisions.length} ${collisions.length === 1 ? 'value of the export is' : 'values of the export are'} taken on this server; nothing was written:\n` +
    collisions.map((c) => `  ${c.message}`).join('\n'),
    {collisions}, 'rename or remove them on one side (svc admin import --dry-run lists them again), then import')
}

/**
 * What importing `file` into `target` would write, and what collides there: nothing is written (a
 * new SQLite file made to look is removed again). The plan is refused (error) only when the import
 * could not happen at all (not an export, a newer svc, an account that holds data).
 */
export async function planImport(file: string, target: StoreTarget, options: ImportOptions = {}): Promise<ImportPlan & {readonly scan: Scan}> {
  const path = resolve(file)
  const total = existsSync(path) ? statSync(path).size : 0
  const scanned = await scan(path, options, options.onBytes && ((n) => options.onBytes!(n, total)))
  const box = scanned.header.secrets && options.passphrase ? openSecretBox(scanned.header.secrets, options.passphrase) : undefined
  return withLoader(target, async (loader) => {
    await checkMigrations(loader, scanned.header)
    const account = await targetAccount(loader, options, scanned)
    const collisions = describeCollisions(scanned.keys, await takenKeys(loader.sql, scanned.keys))
    const tables = plannedCounts(scanned, options, account)
    const plan: ImportPlan = {
      file: path,
      from: {account: scanned.header.account, store: scanned.header.store, svc_version: scanned.header.svc_version, created_at: scanned.header.created_at},
      account, tables, rows: Object.values(tables).reduce((a, b) => a + b, 0), tokens: options.withTokens ? 'carried' : 'left out',
      secrets: box ? 'restored' : 'left out', collisions, sha256: scanned.sha256,
    }
    // The scan rides along (not printed): the import reuses it instead of reading the archive once more.
    return Object.defineProperty(plan, 'scan', {value: scanned, enumerable: false}) as ImportPlan & {readonly scan: Scan}
  })
}

/**
 * Imports `file` into `target` in one transaction: the collisions checked again under the stores'
 * own locks, then every table written with new ids. `plan` (from planImport on the same file) saves
 * reading the archive twice; the archive's checksum must still be the plan's.
 */
export async function importAccount(file: string, target: StoreTarget, options: ImportOptions & {plan?: ImportPlan & {readonly scan: Scan}} = {}): Promise<ImportResult> {
  const started = Date.now()
  const path = resolve(file)
  const total = existsSync(path) ? statSync(path).size : 0
  const scanned = options.plan?.scan ?? await scan(path, options)
  const box: SecretBox | undefined = scanned.header.secrets && options.passphrase ? openSecretBox(scanned.header.secrets, options.passphrase) : undefined
  return withLoader(target, async (loader, commit) => {
    await checkMigrations(loader, scanned.header)
    const planned = await targetAccount(loader, options, scanned)
    await loader.lock(lockNames(scanned.keys))
    const collisions = describeCollisions(scanned.keys, await takenKeys(loader.sql, scanned.keys))
    if (collisions.length) throw conflictError(collisions)
    const accountId = planned.id ?? (await loader.newIds('accounts', 'id', 1))[0]!
    const renumbering = new Renumbering(accountId)
    const shapes = new Map((await loader.tables()).map((t) => [t.name, t]))
    const written: Record<string, number> = {}
    let table: TableShape | undefined
    let positions: number[] = []
    let sha256 = ''
    for await (const line of readArchive(path, BATCH, options.onBytes && ((n) => options.onBytes!(n, total)))) {
      if (line.kind === 'header' && line.header.account?.id !== scanned.header.account.id) {
        throw new SvcError('usage', 0, 'the archive changed since it was checked; nothing was written')
      } else if (line.kind === 'table') {
        const shape = shapes.get(line.name)
        const unknown = shape ? line.columns.filter((c) => !shape.columns.includes(c)) : line.columns
        if (!shape || unknown.length || !accountTable(line.name)) {
          throw new SvcError('usage', 0, `the export holds ${shape ? `columns ${unknown.join(', ')} of ` : ''}table ${line.name}, unknown to this svc; nothing was written`)
        }
        table = {name: line.name, columns: line.columns}
        positions = secretPositions(table)
        written[table.name] = 0
      } else if (line.kind === 'rows' && table) {
        if (table.name === 'tokens' && !options.withTokens) continue
        let rows = line.rows
        if (positions.length && scanned.header.secrets) {
          if (box) rows = rows.map((row) => row.map((v, i) => (positions.includes(i) && typeof v === 'string' ? box.open(v) : v)))
          else rows = guardSecrets(rows, positions, table.name, undefined)
        }
        const key = accountTable(table.name)!.key
        const ids = table.name === 'accounts' ? rows.map(() => accountId) : key ? await loader.newIds(table.name, key, rows.length) : undefined
        const out = renumbering.rewrite(table.name, table.columns, rows, ids)
        if (table.name === 'accounts') {
          if (planned.new) await loader.insert(table, out)
          else await setAccountSettings(loader.sql, accountId, out[0]?.[table.columns.indexOf('settings')] ?? '{}')
        } else {
          await loader.insert(table, out, {skipExisting: table.name === 'app_builds'})
          // Journaled tables: each row's `create` entry, door import, in this transaction (docs/history.md).
          const idAt = table.columns.indexOf('id')
          if (idAt >= 0) await journalImported(loader.sql, loader.driver, table.name, accountId, out.map((r) => r[idAt]!))
        }
        written[table.name] += table.name === 'accounts' && !planned.new ? 0 : out.length
      } else if (line.kind === 'manifest') {
        sha256 = line.manifest.sha256
      }
    }
    if (sha256 !== scanned.sha256) throw new SvcError('usage', 0, 'the archive changed since it was checked; nothing was written')
    await commit()
    return {
      file: path, from: {account: scanned.header.account, store: scanned.header.store, svc_version: scanned.header.svc_version, created_at: scanned.header.created_at},
      account: {id: accountId, name: planned.name, new: planned.new}, tables: written, rows: Object.values(written).reduce((a, b) => a + b, 0),
      tokens: options.withTokens ? 'carried' : 'left out', secrets: box ? 'restored' : 'left out', sha256,
      notes: renumbering.notes, records_rewritten: renumbering.recordsRewritten, duration_ms: Date.now() - started,
    }
  })
}
