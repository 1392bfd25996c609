/**
 * The rows of accounts, users and tokens as both drivers read them, and their mapping to entities
 * (the columns are the same in SQLite and PostgreSQL).
 */
import {createHash, timingSafeEqual} from 'node:crypto'
import type {Principal, Role} from '../../core/auth/permissions.js'
import {deepFreeze} from '../cache-entries.js'
import type {Account, TokenKind, UserView} from './types.js'

export interface AccountRow {id: number; name: string; settings: string; created_at: string}
export interface UserRow {
  id: number; account_id: number; login: string; email: string; name: string; role: string
  permissions: string; department_id: number | null
}
/** A user with their team and group ids as JSON arrays (the repository's principal select). */
export interface PrincipalRow extends UserRow {team_ids: string; group_ids: string}
export interface TokenPrincipalRow extends PrincipalRow {token_hash: string; kind: string; expires_at: string | null}
/** What authenticate() caches per token hash. */
export interface TokenEntry {tokenHash: string; kind: string; expiresAt: string | null; principal: Principal}
export interface Named {id: number; name: string}

/** Tokens are stored by their hash only. */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

/** The principal lookups, around the principal select of a dialect. */
export const principalQueries = (select: string) => ({
  byId: `${select} FROM users u WHERE u.id = ?`,
  byToken: `${select}, tk.token_hash, tk.kind, tk.expires_at FROM tokens tk JOIN users u ON u.id = tk.user_id WHERE tk.token_hash = ?`,
})

export function toPrincipal(row: PrincipalRow): Principal {
  return {
    id: row.id, accountId: row.account_id, login: row.login, email: row.email, name: row.name, role: row.role as Role,
    permissions: JSON.parse(row.permissions) as string[], teamIds: JSON.parse(row.team_ids) as number[],
    groupIds: JSON.parse(row.group_ids) as number[], departmentIds: row.department_id === null ? [] : [row.department_id],
  }
}

export function toAccount(row: AccountRow): Account {
  const settings = JSON.parse(row.settings) as Account['settings']
  return {id: row.id, name: row.name, settings: {...settings, modules: settings.modules ?? []}, created_at: row.created_at}
}

/** A token's cache entry; the principal frozen, as every request that presents the token shares it. */
export const toTokenEntry = (row: TokenPrincipalRow): TokenEntry =>
  ({tokenHash: row.token_hash, kind: row.kind, expiresAt: row.expires_at, principal: deepFreeze(toPrincipal(row))})

/** The principal of a cached token entry if it is of `kind`, matches `hash` and has not expired. */
export function tokenPrincipal(found: TokenEntry | null, hash: string, kind: TokenKind, nowIso: string): Principal | null {
  if (!found || found.kind !== kind) return null
  if (!timingSafeEqual(Buffer.from(found.tokenHash), Buffer.from(hash))) return null
  if (found.expiresAt && found.expiresAt < nowIso) return null
  return found.principal
}

/** A user with the names of their teams, groups and department (read by the driver). */
export function toUserView(row: UserRow, teams: Named[], groups: Named[], department: Named | undefined): UserView {
  return {
    id: row.id,
    account_id: row.account_id,
    login: row.login,
    email: row.email,
    name: row.name,
    role: row.role as Role,
    permissions: JSON.parse(row.permissions) as string[],
    team_ids: teams.map((t) => t.id),
    group_ids: groups.map((g) => g.id),
    department_ids: department ? [department.id] : [],
    team_names: teams.map((t) => t.name),
    group_names: groups.map((g) => g.name),
    department_names: department ? [department.name] : [],
  }
}
