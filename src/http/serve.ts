import {serve, type ServerType} from '@hono/node-server'
import type {AddressInfo} from 'node:net'
import {resolve} from 'node:path'
import {PACKAGE_SYSTEM_PROMPTS} from '../paths.js'
import {openStoreAt, type Store} from '../store/index.js'
import {DATABASE_MARKER, writeDatabaseMarker} from '../store/database-marker.js'
import {createApp} from './app.js'
import {answerClientErrors} from './client-errors.js'
import type {Deps} from './env.js'
import type {Quotas} from '../core/quotas.js'
import {egressPolicy} from '../services/egress.js'
import {createServices} from '../services/index.js'

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
  log?: Deps['log']
  /** `--log-format json`: one entry per request instead of the human access line. */
  requestLog?: Deps['requestLog']
  /** `--allow-connector-hosts`: private or loopback hosts connectors may reach (src/services/egress.ts). */
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
  // Crons, the journal's retention and scheduled backups run only here (never in the embedded CLI backend).
  const services = createServices(store, {
    quotas: options.quotas, allowConnectorHosts: options.allowConnectorHosts, log: options.log, scheduler: true, retention: true,
    backups: options.backups && {target: {dataDir: options.dataDir, databaseUrl: options.databaseUrl}, ...options.backups},
  })
  const deps: Deps = {
    store,
    services,
    systemPromptsDirs: [PACKAGE_SYSTEM_PROMPTS, ...(options.systemPromptsDir ? [resolve(options.systemPromptsDir)] : [])],
    trustProxy: options.trustProxy ?? false,
    publicUrl: options.publicUrl,
    appsUrl: options.appsUrl,
    log: options.log,
    requestLog: options.requestLog,
    quotas: options.quotas,
  }
  const app = createApp(deps)
  const host = options.host ?? '127.0.0.1'
  let server: ServerType
  try {
    server = await new Promise((resolveServer, reject) => {
      const s = serve({fetch: app.fetch, port: options.port ?? 4000, hostname: host}, () => resolveServer(s))
      s.once('error', reject)
    })
  } catch (error) {
    await services.stop().catch(() => undefined)
    await store.close().catch(() => undefined)
    throw error
  }
  answerClientErrors(server as import('node:http').Server)
  const port = (server.address() as AddressInfo).port
  services.start()
  const maintenance = store.maintenance({log: options.log})
  // Reads that may grow with the data (deep pages, scans, searches, exports) run off the server's thread.
  const readers = store.readers()
  readers.start({log: options.log})
  // Schema changes whose reindex (in slices) a stopped server left half done are finished now.
  const upkeep = new AbortController()
  const reindexed = store.dbs.finishReindexes(upkeep.signal).catch((error) => options.log?.(`db reindex: ${(error as Error).message}`))
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
        // No cron starts while in-flight requests finish.
        const schedulerStopped = services.scheduler?.stop().catch(() => undefined)
        const maintenanceStopped = maintenance.stop().catch(() => undefined)
        upkeep.abort()
        // Open event streams end now (their last frames flushed): the server's close waits for its connections.
        const feedsStopped = services.feeds.stop().catch(() => undefined)
        server.close(() => {
          // The services (retention, backups, scheduler, flow runs, render threads, compile workers) end before the store closes.
          const servicesStopped = services.stop().catch(() => undefined)
          // After the server has closed: no request is left to read.
          const readersStopped = readers.stop().catch(() => undefined)
          void Promise.all([schedulerStopped, servicesStopped, maintenanceStopped, reindexed, readersStopped])
            .then(() => store.close())
            .catch(() => undefined)
            .then(() => done())
        })
        // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
        ;(server as import('node:http').Server).closeIdleConnections?.()
        // The sockets of the event streams just ended become idle once their last frames are written.
        void feedsStopped.then(() => setTimeout(() => (server as import('node:http').Server).closeIdleConnections?.(), 50).unref())
      })
      return closing
    },
  }
}
