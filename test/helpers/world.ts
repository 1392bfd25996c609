import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {serve} from '@hono/node-server'
import {answerClientErrors} from '../../src/http/client-errors.js'
import type {AddressInfo} from 'node:net'
import {createApp, type SvcApp} from '../../src/http/app.js'
import type {Deps} from '../../src/http/env.js'
import {createServices, type Services, type ServicesOptions} from '../../src/services/index.js'
import {PACKAGE_SYSTEM_PROMPTS} from '../../src/paths.js'
import type {Store} from '../../src/store/index.js'
import {checkedFetch} from './contract.js'
import {createTestDatabase, openTestStore} from './pg.js'

export interface SeedUser {
  login: string
  account?: string
  role?: 'admin' | 'manager' | 'user' | 'guest'
  permissions?: string[]
  teams?: string[]
  department?: string
  email?: string
  name?: string
}

export interface Seed {
  /** Account names; the first is created even when not listed. Default ['acme']. */
  accounts?: string[]
  /** Users; `account` names one of `accounts` (default the first). */
  users?: SeedUser[]
  /** Modules enabled per account name. */
  modules?: Record<string, string[]>
}

export interface SeededUser {
  id: number
  login: string
  accountId: number
  token: string
  teamIds: number[]
  departmentIds: number[]
}

/**
 * A fresh data dir in a temp folder with seeded accounts and users, and the app over it. The store
 * is SQLite in the data dir, or — with `SVC_TEST_DATABASE_URL` — a PostgreSQL database of its own,
 * cloned from the migrated template and dropped by close().
 */
export interface World {
  dataDir: string
  /** The world's PostgreSQL database (PostgreSQL half only). */
  databaseUrl?: string
  store: Store
  /** A second store over the same data (as another process or a restart would open it); the caller closes it. */
  reopen(): Promise<Store>
  deps: Deps
  /** The world's services (flow runner, render and compile pools, egress); close() stops them before the store. */
  services: Services
  app: SvcApp
  accounts: Record<string, number>
  users: Record<string, SeededUser>
  close(): Promise<void>
}

export const DEFAULT_SEED: Seed = {
  accounts: ['acme', 'other'],
  users: [
    {login: 'admin', role: 'admin'},
    {login: 'alice', role: 'user'},
    {login: 'mallory', account: 'other', role: 'admin'},
  ],
}

export function tempDir(prefix = 'svc-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** `options`: the app's deps (quotas, trustProxy, …) and the services' options (flowLimits, renders, allowConnectorHosts, …). */
export async function createWorld(seed: Seed = DEFAULT_SEED, options: Partial<Omit<Deps, 'store' | 'services'>> & Omit<ServicesOptions, 'quotas' | 'log'> = {}): Promise<World> {
  const dataDir = tempDir()
  const database = process.env.SVC_TEST_DATABASE_URL ? await createTestDatabase() : undefined
  const store = await openTestStore(dataDir, database?.url)
  const accounts: Record<string, number> = {}
  for (const name of seed.accounts ?? ['acme']) accounts[name] = (await store.accounts.createAccount(name)).id
  const firstAccount = Object.keys(accounts)[0]!
  const users: Record<string, SeededUser> = {}
  for (const u of seed.users ?? []) {
    const accountId = accounts[u.account ?? firstAccount]
    if (accountId === undefined) throw new Error(`seed: unknown account ${u.account}`)
    const user = await store.accounts.addUser({...u, accountId})
    const token = await store.accounts.createToken(user.id)
    users[u.login] = {id: user.id, login: u.login, accountId, token, teamIds: user.team_ids, departmentIds: user.department_ids}
  }
  for (const [name, modules] of Object.entries(seed.modules ?? {})) await store.accounts.setModules(accounts[name]!, modules)
  // Test upstreams (test/flows/stub.ts) listen on 127.0.0.1: the egress policy lets connectors reach it.
  const {allowConnectorHosts = ['127.0.0.1'], flowLimits, renders, compiles, scheduler, changeTriggers, feeds, ...deps} = options
  const services = createServices(store, {allowConnectorHosts, flowLimits, renders, compiles, scheduler, changeTriggers, feeds, quotas: deps.quotas, log: deps.log})
  const fullDeps: Deps = {store, services, systemPromptsDirs: [PACKAGE_SYSTEM_PROMPTS], ...deps}
  const app = createApp(fullDeps)
  return {
    dataDir, databaseUrl: database?.url, store, deps: fullDeps, services, app, accounts, users,
    reopen: () => openTestStore(dataDir, database?.url),
    async close() {
      await services.stop()
      await store.close()
      await database?.drop()
      rmSync(dataDir, {recursive: true, force: true})
    },
  }
}

/** How a test reaches the app: in-process `app.request`, or real HTTP on a port-0 server. */
export interface Transport {
  name: 'in-process' | 'http'
  /** A path of the main origin, or an absolute URL whose host names another origin of the same server
   *  (an app's `http://<code>.localhost:<port>`): over HTTP it connects to the server with that Host header. */
  fetch(path: string, init?: RequestInit): Promise<Response>
  /** Origin requests are made against (for building absolute URLs in expectations). */
  origin: string
  close(): Promise<void>
}

export function inProcess(app: SvcApp): Transport {
  const origin = 'http://localhost'
  return {
    name: 'in-process', origin, close: async () => {},
    fetch: checkedFetch(async (path, init) => app.request(/^https?:\/\//.test(path) ? path : origin + path, init), origin),
  }
}

export async function overHttp(app: SvcApp): Promise<Transport> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({fetch: app.fetch, port: 0, hostname: '127.0.0.1'}, () => resolve(s))
  })
  // What `svc serve` adds around the app: the JSON answers of the HTTP server itself (a 431).
  answerClientErrors(server as import('node:http').Server)
  // Idle connections kept longer than any pause of a loaded test process: fetch closes its idle
  // sockets after 4 s by a timer, and a test process stalled past Node's 5 s would otherwise send
  // its next request on a socket the server has just closed ("other side closed").
  ;(server as import('node:http').Server).keepAliveTimeout = 120_000
  ;(server as import('node:http').Server).headersTimeout = 130_000
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    name: 'http',
    origin,
    fetch: checkedFetch((path, init) => {
      if (!/^https?:\/\//.test(path)) return fetch(origin + path, init)
      const url = new URL(path)
      return url.host === new URL(origin).host ? fetch(path, init) : fetchWithHost(origin, url, init)
    }, origin),
    close: () => new Promise((resolve) => {
      ;(server as import('node:http').Server).closeAllConnections?.()
      server.close(() => resolve())
    }),
  }
}

/** Node's fetch neither resolves `*.localhost` nor lets a Host header through: a plain http.request does both. */
export async function fetchWithHost(origin: string, url: URL, init: RequestInit = {}): Promise<Response> {
  const {request} = await import('node:http')
  const server = new URL(origin)
  const headers: Record<string, string> = {}
  new Headers(init.headers).forEach((v, k) => (headers[k] = v))
  headers.host = url.host
  const body = init.body === undefined || init.body === null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer())
  if (body) headers['content-length'] = String(body.length)
  return new Promise((resolve, reject) => {
    const req = request({host: server.hostname, port: server.port, method: init.method ?? 'GET', path: url.pathname + url.search, headers}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const out = new Headers()
        for (const [k, v] of Object.entries(res.headers)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one)
        const status = res.statusCode ?? 500
        resolve(new Response([101, 204, 205, 304].includes(status) ? null : Buffer.concat(chunks), {status, headers: out}))
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

export const TRANSPORTS = ['in-process', 'http'] as const
export type TransportName = (typeof TRANSPORTS)[number]

export async function openTransport(name: TransportName, app: SvcApp): Promise<Transport> {
  return name === 'in-process' ? inProcess(app) : overHttp(app)
}
