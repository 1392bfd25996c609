import {existsSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import {DEFAULT_DATA_DIR} from '../paths.js'
import {loadProfiles} from '../client/profiles.js'
import {isIdentifier, isRole, type Role} from '../core/auth/permissions.js'
import {FieldErrorBag, SvcError} from '../core/errors.js'
import {dataFile, isPostgresUrl, openStoreAt, type Store, type StoreTarget} from '../store/index.js'
import {describeDatabaseUrl, refuseNewSqlite} from '../store/database-marker.js'
import {READ_ONLY_TOKEN, type Account} from '../store/accounts/types.js'
import {NOBODY} from '../core/journal/types.js'

/**
 * The data dir an admin command works on. Admin commands open the SQLite file directly (the API has
 * no user administration), so they never act on a server: `--data DIR` (or `SVC_DATA`), else the
 * data dir of a local profile (`--profile`, else the current one), else `./.svc`. With a remote
 * target in effect (`SVC_URL`, or a remote profile) and no `--data`, they refuse rather than
 * quietly create a `./.svc` the server never sees.
 */
export interface AdminTarget {
  dataDir: string
  /** `--database-url` / `SVC_DATABASE_URL`: the PostgreSQL database instead of the data dir's SQLite file. */
  databaseUrl?: string
  /** `--sqlite`: create the SQLite file even in a data dir recorded as a PostgreSQL server's. */
  sqlite?: boolean
  /** `local: ./.svc` (stderr), with `(new)` when the command will create it. */
  description: string
  exists: boolean
}

export function adminTarget(flags: {data?: string; profile?: string; 'database-url'?: string; sqlite?: boolean}): AdminTarget {
  const databaseUrl = flags['database-url']?.trim() || undefined
  if (databaseUrl && flags.sqlite) {
    throw new SvcError('usage', 0, 'give either --database-url (SVC_DATABASE_URL) or --sqlite, not both')
  }
  if (databaseUrl) {
    if (!isPostgresUrl(databaseUrl)) {
      throw new SvcError('usage', 0, 'the database URL must start with postgres:// or postgresql://', undefined,
        'leave --database-url / SVC_DATABASE_URL out to use the SQLite file of the data dir')
    }
    // The database is the target: shown without its password; its data dir holds only files.
    return {dataDir: resolve(flags.data ?? DEFAULT_DATA_DIR), databaseUrl, exists: true, description: `postgres: ${describeDatabaseUrl(databaseUrl)}`}
  }
  let dataDir = flags.data
  if (!dataDir) {
    if (process.env.SVC_URL) {
      throw new SvcError('usage', 0, `admin commands work on a local data dir, and SVC_URL points at a server (${process.env.SVC_URL})`, undefined,
        'run the command on the server\'s machine with --data DIR (the dir `svc serve` uses), or unset SVC_URL')
    }
    const file = loadProfiles()
    const name = flags.profile ?? file.current
    const profile = name ? file.profiles[name] : undefined
    if (flags.profile && !profile) throw new SvcError('usage', 0, `no profile "${flags.profile}"`, undefined, 'list them with: svc profile list')
    if (profile?.url) {
      throw new SvcError('usage', 0, `admin commands work on a local data dir, and profile "${name}" is a remote server (${profile.url})`, undefined,
        'run the command on the server\'s machine with --data DIR (the dir `svc serve` uses), or pass --data to act on a local dir')
    }
    dataDir = profile?.data ?? DEFAULT_DATA_DIR
  }
  const absolute = resolve(dataDir)
  refuseNewSqlite(absolute, flags.sqlite)
  const exists = existsSync(dataFile(absolute))
  const shown = relative(process.cwd(), absolute) || '.'
  return {dataDir: absolute, sqlite: flags.sqlite, exists, description: `local: ${shown.startsWith('..') ? absolute : `./${shown}`}${exists ? '' : ' (new)'}`}
}

/** A usage error when the data dir holds no svc data (commands that only read or change what is there). */
export function requireData(target: AdminTarget): void {
  if (!target.exists) {
    throw new SvcError('usage', 0, `no svc data in ${target.dataDir}`, undefined, 'pass --data DIR (the dir `svc serve` uses), or create it with: svc admin user add LOGIN --role admin --data DIR')
  }
}


/** Local administration of a data dir or a PostgreSQL database (no server involved): accounts, users, modules. */
async function withStore<T>(target: string | StoreTarget, fn: (store: Store) => Promise<T>): Promise<T> {
  const {dataDir, databaseUrl, sqlite} = typeof target === 'string' ? {dataDir: target, databaseUrl: undefined, sqlite: false} : target
  const store = await openStoreAt({dataDir: resolve(dataDir), databaseUrl, sqlite})
  try {
    // What an admin command writes (a user, a token) is journaled through door cli (docs/history.md), no request, no signed-in actor.
    return await store.journal.context.run({...NOBODY, door: 'cli'}, () => fn(store))
  } finally {
    await store.close()
  }
}

async function accountOrDefault(store: Store, accountId: number | undefined, createWhenNone: boolean): Promise<Account> {
  if (accountId !== undefined) {
    const account = await store.accounts.getAccount(accountId)
    if (!account) throw new SvcError('not_found', 404, `no account ${accountId}`, undefined, 'list accounts with: svc admin account list')
    return account
  }
  const first = await store.accounts.firstAccount()
  if (first) return first
  if (!createWhenNone) throw new SvcError('not_found', 404, 'no account yet', undefined, 'create one with: svc admin account create NAME')
  return store.accounts.createAccount('default')
}

export async function createAccount(target: string | StoreTarget, name: string) {
  if (!name.trim()) throw new SvcError('validation', 422, 'name can\'t be blank', {name: ["can't be blank"]})
  return withStore(target, async (store) => {
    const account = await store.accounts.createAccount(name.trim())
    return {id: account.id, name: account.name}
  })
}

export async function listAccounts(target: string | StoreTarget) {
  return withStore(target, async (store) =>
    (await store.accounts.listAccounts()).map((a) => ({id: a.id, name: a.name, modules: a.settings.modules})))
}

export interface AddUserInput {
  login: string
  accountId?: number
  role?: string
  permissions?: string[]
  teams?: string[]
  department?: string
  email?: string
  name?: string
}

export async function addUser(target: string | StoreTarget, input: AddUserInput) {
  const errors = new FieldErrorBag()
  if (!/^[A-Za-z0-9_.@+-]{1,64}$/.test(input.login)) errors.add('login', 'must be 1-64 characters of letters, digits, _ . @ + -')
  if (input.role !== undefined && !isRole(input.role)) errors.add('role', 'must be one of admin, manager, user, guest')
  for (const p of input.permissions ?? []) if (!isIdentifier(p)) errors.add('permission', `"${p}" is not a permission name`)
  errors.throwIfAny()
  return withStore(target, async (store) => {
    const account = await accountOrDefault(store, input.accountId, true)
    const user = await store.accounts.addUser({
      accountId: account.id,
      login: input.login,
      role: (input.role as Role | undefined) ?? 'user',
      permissions: input.permissions,
      teams: input.teams,
      department: input.department,
      email: input.email,
      name: input.name,
    })
    const token = await store.accounts.createToken(user.id)
    return {
      id: user.id, login: user.login, account_id: user.account_id, role: user.role, permissions: user.permissions,
      team_ids: user.team_ids, department_ids: user.department_ids, token,
    }
  })
}

export async function setModule(target: string | StoreTarget, module: string, enable: boolean, accountId?: number) {
  if (!isIdentifier(module)) throw new SvcError('validation', 422, `"${module}" is not a module name`, {module: ['is not a module name']})
  return withStore(target, async (store) => {
    const account = await accountOrDefault(store, accountId, false)
    const value = await store.accounts.changeModule(account.id, enable ? 'add' : 'remove', module)
    return {account_id: account.id, key: 'account.settings.modules', value}
  })
}

const userRow = (u: {id: number; login: string; account_id: number; role: string; email?: string | null; name?: string | null; permissions: string[]; team_ids: number[]; department_ids: number[]}) => ({
  id: u.id, login: u.login, account_id: u.account_id, role: u.role, email: u.email ?? null, name: u.name ?? null,
  permissions: u.permissions, team_ids: u.team_ids, department_ids: u.department_ids,
})

export async function listUsers(target: string | StoreTarget, accountId?: number) {
  return withStore(target, async (store) => {
    const account = await accountOrDefault(store, accountId, false)
    return (await store.accounts.listUsers(account.id)).map(userRow)
  })
}

/**
 * A new API token for a user; every other API token of the user is revoked in the same
 * transaction (a lost or leaked token stops working at once, on a running server too).
 */
export async function newToken(target: string | StoreTarget, login: string, accountId?: number) {
  return withStore(target, async (store) => {
    const user = await userByLogin(store, login, accountId)
    const {token, revoked} = await store.accounts.replaceApiTokens(user.id)
    return {id: user.id, login: user.login, account_id: user.account_id, token, revoked, read_only: false}
  })
}

/**
 * One more token for a user that may read what the user may read and change nothing (an agent's,
 * a dashboard's); the user's other tokens keep working. `svc admin user token LOGIN` revokes it with the rest.
 */
export async function newReadOnlyToken(target: string | StoreTarget, login: string, accountId?: number) {
  return withStore(target, async (store) => {
    const user = await userByLogin(store, login, accountId)
    const token = await store.accounts.createToken(user.id, READ_ONLY_TOKEN)
    return {id: user.id, login: user.login, account_id: user.account_id, token, revoked: 0, read_only: true}
  })
}

async function userByLogin(store: Store, login: string, accountId?: number) {
  const account = await accountOrDefault(store, accountId, false)
  const user = await store.accounts.findUserByLogin(account.id, login)
  if (!user) throw new SvcError('not_found', 404, `no user "${login}" in account ${account.id}`, undefined, 'list users with: svc admin user list')
  return user
}
