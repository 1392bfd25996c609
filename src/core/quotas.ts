/**
 * Quotas of a server, with their defaults. `svc serve --quota NAME=VALUE` (repeatable) changes one;
 * `--cron-seconds` lowers the shortest cron interval to one second. docs/reliability.md lists them.
 */
import {badRequest, forbidden, validation} from './errors.js'

export interface Quotas {
  /** Bytes of one record's `data` (as JSON), on every write path. */
  record_bytes: number
  /** Bytes of record data one client address may write through public methods per minute. */
  public_write_bytes_per_ip: number
  /** Bytes of record data public methods may write into one database per minute (all visitors together). */
  public_write_bytes_per_db: number
  /** Records a database may hold for a public create to be accepted. */
  public_db_records: number
  /** Bytes of a public `list` or `search` answer: records past it are left out (header `X-Svc-Truncated: 1`). */
  public_list_bytes: number
  /**
   * Server time (ms) anonymous public reads (`list`, `search`, `get`) may take a minute: per visitor
   * (a signed-in user of another account, or the signed `svc_visitor` cookie), per client address
   * (IPv6: per /64) and per database (every visitor together). Each is a budget that refills
   * continuously and holds at most one minute's worth; a read is let through while all three hold
   * something and then charged the time it took (at least 1 ms). Past one: 429 with `Retry-After`.
   * 0 turns that one off. Members of the database's account are not limited (src/core/dbs/public-reads.ts).
   */
  public_read_ms_per_visitor: number
  public_read_ms_per_ip: number
  public_read_ms_per_db: number
  /** Crons one account may have. */
  crons_per_account: number
  /** Shortest interval between two runs of one cron, seconds (60; 1 with `--cron-seconds`). */
  cron_min_interval_seconds: number
  /** Bytes (UTF-8) of an app's build, compiled JavaScript and CSS together, that the server stores and serves. */
  app_build_bytes: number
  /** App assets (docs/apps.md "Assets"): bytes of one file, bytes of all of an app's files, files per app. */
  app_asset_bytes: number
  app_assets_bytes: number
  app_assets_count: number
  /** App compiles: worker processes, milliseconds per compile, heap MB per worker (src/services/compiles/compile-pool.ts). */
  compile_workers: number
  compile_timeout_ms: number
  compile_memory_mb: number
  /** App compiles one account may have waiting for a worker (one more: 429). */
  compile_queue_per_account: number
  /** Prompt renders of the server: threads, hard deadline ms, heap MB per thread (src/services/renders/render-pool.ts). */
  render_threads: number
  render_deadline_ms: number
  render_memory_mb: number
  /** Live feeds (docs/realtime.md "Quotas"): event streams open at once per account (its users' private feeds and its apps' visitors together), per server instance, and per public visitor (0: no limit). */
  feeds_per_account: number
  feeds_per_server: number
  feeds_per_visitor: number
  /** Bytes of events one feed connection may hold unread before its client is sent `resync` and dropped. */
  feed_queue_bytes: number
}

export const DEFAULT_QUOTAS: Readonly<Quotas> = {
  record_bytes: 256 * 1024,
  public_write_bytes_per_ip: 1024 * 1024,
  public_write_bytes_per_db: 8 * 1024 * 1024,
  public_db_records: 100_000,
  public_list_bytes: 1024 * 1024,
  public_read_ms_per_visitor: 3_000,
  public_read_ms_per_ip: 6_000,
  public_read_ms_per_db: 30_000,
  crons_per_account: 50,
  cron_min_interval_seconds: 60,
  app_build_bytes: 4 * 1024 * 1024,
  app_asset_bytes: 2 * 1024 * 1024,
  app_assets_bytes: 16 * 1024 * 1024,
  app_assets_count: 200,
  compile_workers: 2,
  compile_timeout_ms: 30_000,
  compile_memory_mb: 512,
  compile_queue_per_account: 8,
  render_threads: 2,
  render_deadline_ms: 2_000,
  render_memory_mb: 128,
  feeds_per_account: 500,
  feeds_per_server: 20_000,
  feeds_per_visitor: 8,
  feed_queue_bytes: 256 * 1024,
}

export const quotasOf = (overrides: Partial<Quotas> | undefined): Quotas => ({...DEFAULT_QUOTAS, ...overrides})

/** `NAME=VALUE` pairs (`--quota`) → overrides; an unknown name or a value that is not a whole number ≥ 0 throws. */
export function parseQuotas(pairs: readonly string[]): Partial<Quotas> {
  const out: Partial<Quotas> = {}
  for (const pair of pairs) {
    const m = /^([a-z_]+)=(\d{1,15})$/.exec(pair.trim())
    if (!m || !Object.hasOwn(DEFAULT_QUOTAS, m[1]!)) {
      throw badRequest(`--quota ${pair}: use NAME=NUMBER with NAME one of ${Object.keys(DEFAULT_QUOTAS).join(', ')}`)
    }
    out[m[1] as keyof Quotas] = Number(m[2])
  }
  return out
}

/**
 * A size for a message that compares it with a cap: the exact count of bytes, and from 1 MiB on
 * the MiB too (`2,097,153 bytes (2.0 MB)`) — rounded alone, a size 1 byte over a cap of 2 MiB
 * read "2.0 MB; at most 2.0 MB".
 */
export function sizeText(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} byte${bytes === 1 ? '' : 's'}`
  return bytes >= 2 ** 20 ? `${exact} (${(bytes / 2 ** 20).toFixed(1)} MB)` : exact
}

/** JSON size of a value in bytes (UTF-8). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '')

/**
 * Totals per key over fixed windows, in this process: the SQLite store's hit counts and byte
 * budgets (src/store/sqlite/cluster.ts); PostgreSQL keeps them in a table every instance shares.
 */
export function fixedWindows() {
  const used = new Map<string, {start: number; total: number}>()
  return {
    /**
     * Adds `amount` to the current window of `windowMs` of `key` unless the total would pass
     * `limit` (then nothing is added): whether it was added, and the window's total after.
     */
    add(key: string, amount: number, windowMs: number, limit = Infinity, now = Date.now()): {added: boolean; total: number} {
      if (used.size > 50_000) for (const [k, v] of used) if (now - v.start >= windowMs) used.delete(k)
      let entry = used.get(key)
      if (!entry || now - entry.start >= windowMs) used.set(key, (entry = {start: now, total: 0}))
      if (entry.total + amount > limit) return {added: false, total: entry.total}
      entry.total += amount
      return {added: true, total: entry.total}
    },
  }
}

/** A cron create over `crons_per_account` (the store counts and inserts in one step). */
export const cronQuotaReached = (max: number) => validation({cron: [`an account has at most ${max} crons`]})
/** A public create into a db that holds `public_db_records` records (counted and inserted in one step). */
export const publicDbFull = (max: number) => forbidden(`this database is full for public creates (${max} records)`)
