import {serve, type ServerType} from '@hono/node-server'
import type {AddressInfo} from 'node:net'
import {resolve} from 'node:path'
import {PACKAGE_SYSTEM_PROMPTS} from '../paths.js'
import {openStoreAt, type Store} from '../store/index.js'
import {DATABASE_MARKER, writeDatabaseMarker} from '../store/database-marker.js'
import {createApp} from './app.js'
import {createFlowScheduler} from './routes/flows/scheduler.js'
import type {Deps} from './env.js'
import {quotasOf, type Quotas} from '../core/quotas.js'
import {egressPolicy} from './egress.js'
import {configureCompilers, stopCompilers} from '../compile/pool.js'

export interface ServeOptions {
  dataDir: string
  /** `--database-url` / `SVC_DATABASE_URL`: PostgreSQL (N instances over one database) instead of the data dir's SQLite file. */
  databaseUrl?: string
  /** `--sqlite`: a SQLite file even in a data dir recorded as a PostgreSQL server's. */
  sqlite?: boolean
  port?: number
  host?: string
  systemPromptsDir?: string
  trustProxy?: boolean
  publicUrl?: string
  /** `--apps-url`: the origin template of apps (`https://{code}.apps.example.com`); default `http://{code}.localhost:<port>`. */
  appsUrl?: string
  log?: (line: string) => void
  /** `--allow-connector-hosts`: private or loopback hosts connectors may reach (src/http/egress.ts). */
  allowConnectorHosts?: string[]
  /** `--quota NAME=VALUE` overrides (src/core/quotas.ts). */
  quotas?: Partial<Quotas>
  /** `--backup-dir/--backup-every/--backup-keep`: scheduled backups (docs/backups.md). */
  backups?: {dir: string; everyMs: number; keep: number; passphrase?: string}
}

export interface RunningServer {
  url: string
  port: number
  host: string
  store: Store
  deps: Deps
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>
}

/** Starts the self-hosted server over a data dir. Port 0 picks a free port. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  egressPolicy(options.allowConnectorHosts) // a bad entry fails here, at start, before the database opens
  const store = await openStoreAt({dataDir: options.dataDir, databaseUrl: options.databaseUrl, sqlite: options.sqlite, log: options.log})
  if (options.databaseUrl) {
    // The data dir remembers its database, so that a command given the dir alone does not start a SQLite file beside it.
    try {
      writeDatabaseMarker(options.dataDir, options.databaseUrl)
    } catch (error) {
      options.log?.(`Warning: could not record the database in ${options.dataDir}/${DATABASE_MARKER}: ${(error as Error).message}`)
    }
  }
  const deps: Deps = {
    store,
    systemPromptsDirs: [PACKAGE_SYSTEM_PROMPTS, ...(options.systemPromptsDir ? [resolve(options.systemPromptsDir)] : [])],
    trustProxy: options.trustProxy ?? false,
    publicUrl: options.publicUrl,
    appsUrl: options.appsUrl,
    log: options.log,
    allowConnectorHosts: options.allowConnectorHosts,
    quotas: options.quotas,
  }
  const q = quotasOf(options.quotas)
  deps.renders = {threads: q.render_threads, deadlineMs: q.render_deadline_ms, memoryMb: q.render_memory_mb}
  configureCompilers({workers: q.compile_workers, timeoutMs: q.compile_timeout_ms, memoryMb: q.compile_memory_mb,
    queuePerAccount: q.compile_queue_per_account})
  const backups = options.backups
    ? (await import('../services/backup/schedule.js')).createBackupSchedule({
      target: {dataDir: options.dataDir, databaseUrl: options.databaseUrl}, ...options.backups, lead: () => store.cluster.lead(), log: options.log,
    })
    : undefined
  deps.backupStatus = backups ? () => backups.status() : undefined
  const app = createApp(deps)
  const host = options.host ?? '127.0.0.1'
  let server: ServerType
  try {
    server = await new Promise((resolveServer, reject) => {
      const s = serve({fetch: app.fetch, port: options.port ?? 4000, hostname: host}, () => resolveServer(s))
      s.once('error', reject)
    })
  } catch (error) {
    await store.close().catch(() => undefined)
    throw error
  }
  const port = (server.address() as AddressInfo).port
  // Crons run only inside `svc serve` (never in the embedded CLI backend).
  const scheduler = createFlowScheduler(deps)
  scheduler.start()
  const maintenance = store.maintenance({log: options.log})
  backups?.start()
  // Deletes of dbs a stopped server left half done (records are purged in slices) are finished now.
  const purges = new AbortController()
  const purged = store.dbs.purgeDeleted(purges.signal).catch((error) => options.log?.(`db purge: ${(error as Error).message}`))
  const urlHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost}:${port}`,
    port,
    host,
    store,
    deps,
    close() {
      closing ??= new Promise<void>((done) => {
        const schedulerStopped = scheduler.stop().catch(() => undefined)
        const maintenanceStopped = maintenance.stop().catch(() => undefined)
        const backupsStopped = backups?.stop().catch(() => undefined)
        purges.abort()
        server.close(() => {
          stopCompilers()
          // Render threads: a thread that has rendered keeps the process alive after SIGTERM otherwise.
          const rendersStopped = import('./render-pool.js').then(({closeRenderPools}) => closeRenderPools()).catch(() => undefined)
          void Promise.all([schedulerStopped, maintenanceStopped, rendersStopped, purged, backupsStopped])
            .then(() => store.close())
            .catch(() => undefined)
            .then(() => done())
        })
        // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
        ;(server as import('node:http').Server).closeIdleConnections?.()
      })
      return closing
    },
  }
}
