import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {serve} from '@hono/node-server'
import type {AddressInfo} from 'node:net'
import {createApp, type SvcApp} from '../../src/http/app.js'
import type {Deps} from '../../src/http/env.js'
import {PACKAGE_SYSTEM_PROMPTS} from '../../src/paths.js'
import {openStore, type Store} from '../../src/store/index.js'

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

/** A fresh data dir in a temp folder with seeded accounts and users, and the app over it. */
export interface World {
  dataDir: string
  store: Store
  deps: Deps
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

export async function createWorld(seed: Seed = DEFAULT_SEED, deps: Partial<Omit<Deps, 'store'>> = {}): Promise<World> {
  const dataDir = tempDir()
  const store = openStore(dataDir)
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
  const fullDeps: Deps = {store, systemPromptsDirs: [PACKAGE_SYSTEM_PROMPTS], allowConnectorHosts: ['127.0.0.1'], ...deps}
  const app = createApp(fullDeps)
  return {
    dataDir, store, deps: fullDeps, app, accounts, users,
    async close() {
      store.close()
      rmSync(dataDir, {recursive: true, force: true})
    },
  }
}

/** How a test reaches the app: in-process `app.request`, or real HTTP on a port-0 server. */
export interface Transport {
  name: 'in-process' | 'http'
  fetch(path: string, init?: RequestInit): Promise<Response>
  /** Origin requests are made against (for building absolute URLs in expectations). */
  origin: string
  close(): Promise<void>
}

export function inProcess(app: SvcApp): Transport {
  const origin = 'http://localhost'
  return {name: 'in-process', origin, fetch: async (path, init) => app.request(origin + path, init), close: async () => {}}
}

export async function overHttp(app: SvcApp): Promise<Transport> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({fetch: app.fetch, port: 0, hostname: '127.0.0.1'}, () => resolve(s))
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    name: 'http',
    origin,
    fetch: (path, init) => fetch(origin + path, init),
    close: () => new Promise((resolve) => {
      ;(server as import('node:http').Server).closeAllConnections?.()
      server.close(() => resolve())
    }),
  }
}

export const TRANSPORTS = ['in-process', 'http'] as const
export type TransportName = (typeof TRANSPORTS)[number]

export async function openTransport(name: TransportName, app: SvcApp): Promise<Transport> {
  return name === 'in-process' ? inProcess(app) : overHttp(app)
}
