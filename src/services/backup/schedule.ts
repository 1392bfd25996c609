/**
 * Scheduled backups of a running server (`svc serve --backup-dir DIR --backup-every 6h
 * --backup-keep 14`): an archive every period into DIR, the oldest beyond N removed, a failure
 * logged loudly and retried at the next period, the last good backup's age answered by
 * GET /svc/health. Over PostgreSQL only the upkeep leader of the instances makes them.
 * Each backup runs on a worker thread (./worker.ts): the server's thread only answers requests meanwhile (docs/backups.md).
 */
import {readdir, stat, unlink} from 'node:fs/promises'
import {mkdirSync} from 'node:fs'
import {join, resolve} from 'node:path'
import type {StoreTarget} from '../../store/index.js'

/** What GET /svc/health says of backups (never a path or an error's text: the route is public). */
export interface BackupStatus {
  last_ok_at: string | null
  age_seconds: number | null
  every_seconds: number
  failing: boolean
}

export interface BackupSchedule {
  start(): void
  /** Stops the timer and waits for a running backup (whose partial file is removed if it is aborted). */
  stop(): Promise<void>
  status(): BackupStatus
  /** Runs one backup now (what the timer does). */
  runOnce(): Promise<void>
}

export interface BackupScheduleOptions {
  target: StoreTarget
  dir: string
  everyMs: number
  keep: number
  passphrase?: string
  /** Whether this instance should make the backups now (the cluster's upkeep leader). */
  lead: () => Promise<boolean>
  log?: (line: string) => void
  now?: () => number
}

const NAME = /^svc-(\d{8}T\d{6}Z)\.svcbak$/

/** `svc-20261127T180000Z.svcbak`: sorts by time. */
export function archiveName(at: Date): string {
  return `svc-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z')}.svcbak`
}

export function createBackupSchedule(options: BackupScheduleOptions): BackupSchedule {
  const dir = resolve(options.dir)
  const now = options.now ?? Date.now
  let lastOk: number | null = null
  let failing = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = false
  const stopping = new AbortController()

  const archives = async () => (await readdir(dir).catch(() => [] as string[])).filter((f) => NAME.test(f)).sort()

  async function prune(): Promise<void> {
    const all = await archives()
    for (const old of all.slice(0, Math.max(0, all.length - options.keep))) await unlink(join(dir, old)).catch(() => undefined)
  }

  async function runOnce(): Promise<void> {
    if (!(await options.lead())) return
    const file = join(dir, archiveName(new Date(now())))
    try {
      mkdirSync(dir, {recursive: true})
      // Loaded at the first backup: every server (and every embedded CLI command) makes the services, few make backups.
      // On a thread of its own: the server's thread only answers requests meanwhile.
      const {backupInWorker} = await import('./worker.js')
      const result = await backupInWorker(options.target, file, {passphrase: options.passphrase, signal: stopping.signal})
      lastOk = now()
      failing = false
      await prune()
      options.log?.(`Backup written: ${file} (${result.rows} rows, ${(result.duration_ms / 1000).toFixed(1)} s)`)
    } catch (error) {
      if (stopping.signal.aborted) return // the server is stopping: the partial file is gone, nothing failed
      failing = true
      options.log?.(`BACKUP FAILED (${file}): ${(error as Error).message}; the next attempt is in ${Math.round(options.everyMs / 1000)} s`)
    }
  }

  function schedule(delay: number): void {
    if (stopped) return
    timer = setTimeout(() => {
      running = runOnce().finally(() => {
        running = undefined
        schedule(options.everyMs)
      })
    }, Math.max(0, delay))
    timer.unref?.()
  }

  return {
    start() {
      // The newest archive already in the dir says when the next one is due (a restart does not reset the clock).
      void archives().then(async (all) => {
        const newest = all.at(-1)
        if (newest) lastOk = (await stat(join(dir, newest)).catch(() => undefined))?.mtimeMs ?? null
        schedule(lastOk === null ? 0 : lastOk + options.everyMs - now())
      })
    },
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      stopping.abort()
      await running
    },
    status: () => ({
      last_ok_at: lastOk === null ? null : new Date(lastOk).toISOString(),
      age_seconds: lastOk === null ? null : Math.max(0, Math.round((now() - lastOk) / 1000)),
      every_seconds: Math.round(options.everyMs / 1000),
      failing,
    }),
    runOnce,
  }
}

/** `90s`, `30m`, `6h`, `1d` (a number alone is seconds); at least a minute. */
export function parseEvery(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$/i.exec(text)
  if (!m) throw new Error(`--backup-every: "${text}" is not a duration (e.g. 30m, 6h, 1d)`)
  const unit = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}[(m[2] ?? 's').toLowerCase() as 's']
  const ms = Number(m[1]) * unit
  if (ms < 60_000) throw new Error('--backup-every: at least 1m')
  return ms
}
