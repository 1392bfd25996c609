/** Roles, permissions and modules as decisions.md names them. Pure rules, no I/O. */
export const ROLES = ['admin', 'manager', 'user', 'guest'] as const
export type Role = (typeof ROLES)[number]

/** Permission names the spec uses. Other names are accepted and stored as given. */
export const KNOWN_PERMISSIONS = ['account', 'dashboard_advanced', 'todo', 'crm_notes_index'] as const

/** Modules an account may enable (account.settings.modules). */
export const MODULES = [
  'crm', 'cms', 'organize', 'mail', 'kb', 'marketing', 'toolkit',
  'connect', 'voip', 'form', 'insight', 'billing', 'drive', 'fiskator', 'commerce',
] as const

export interface Principal {
  id: number
  accountId: number
  login: string
  email: string
  name: string
  role: Role
  permissions: string[]
  teamIds: number[]
  groupIds: number[]
  departmentIds: number[]
}

/** Role `admin` has every permission. */
export function hasPermission(user: Pick<Principal, 'role' | 'permissions'>, permission: string): boolean {
  return user.role === 'admin' || user.permissions.includes(permission)
}

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value)

const NAME_RE = /^[a-z][a-z0-9_]{0,39}$/
/** Permission and module names: lower-case identifiers. */
export const isIdentifier = (value: unknown): value is string => typeof value === 'string' && NAME_RE.test(value)
