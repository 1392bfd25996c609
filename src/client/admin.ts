import {resolve} from 'node:path'
import {isIdentifier, isRole, type Role} from '../core/auth/permissions.js'
import {FieldErrorBag, SvcError} from '../core/errors.js'
import {openStoreAt, type Store, type StoreTarget} from '../store/index.js'
import type {Account} from '../store/accounts/types.js'

/** Where administration writes: a data dir (its SQLite file), or a PostgreSQL database (`--database-url`). */
export type AdminTarget = string | StoreTarget

/** Local administration of a data dir or a database (no server involved): accounts, users, modules. */
async function withStore<T>(target: AdminTarget, fn: (store: Store) => Promise<T>): Promise<T> {
  const {dataDir, databaseUrl} = typeof target === 'string' ? {dataDir: target, databaseUrl: undefined} : target
  const store = await openStoreAt({dataDir: resolve(dataDir), databaseUrl})
  try {
    return await fn(store)
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

export async function createAccount(target: AdminTarget, name: string) {
  if (!name.trim()) throw new SvcError('validation', 422, 'name can\'t be blank', {name: ["can't be blank"]})
  return withStore(target, async (store) => {
    const account = await store.accounts.createAccount(name.trim())
    return {id: account.id, name: account.name}
  })
}

export async function listAccounts(target: AdminTarget) {
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

export async function addUser(target: AdminTarget, input: AddUserInput) {
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

export async function setModule(target: AdminTarget, module: string, enable: boolean, accountId?: number) {
  if (!isIdentifier(module)) throw new SvcError('validation', 422, `"${module}" is not a module name`, {module: ['is not a module name']})
  return withStore(target, async (store) => {
    const account = await accountOrDefault(store, accountId, false)
    const value = await store.accounts.changeModule(account.id, enable ? 'add' : 'remove', module)
    return {account_id: account.id, key: 'account.settings.modules', value}
  })
}
