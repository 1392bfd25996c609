/** Roles, permissions and modules as decisions.md names them. Pure rules, no I/O. */
export const ROLES = ['admin', 'manager', 'user', 'guest'] as const
export type Role = (typeof ROLES)[number]

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

/**
 * What each role may do, per resource: the one table every route asks (`requireCan` in
 * src/http/middleware/auth.ts). The spec's permission tables come first (company dashboards and
 * account settings need `account`); where it is silent, guests read only and never write anything,
 * `user` writes prompts, personal dashboards and the account's apps, records, connectors and flows,
 * `manager` also what reshapes data for everyone (db schemas and public methods), `admin` everything. docs/security.md "Roles" shows the matrix.
 */
export const ACTIONS = {
  /** Read anything of the own account that the resource's own visibility rules show. */
  'read': {role: 'guest'},
  /** Create/change/delete a prompt of scope user, team or department (own teams, own department). */
  'prompt.write': {role: 'user'},
  /** A prompt of scope account: rendered for everyone. The spec's agents write these as users; guests never. */
  'prompt.write_account': {role: 'user'},
  /** A personal dashboard, the own dashboard selection. */
  'dashboard.write': {role: 'guest'},
  /** A company (shared) dashboard. */
  'dashboard.write_company': {role: 'admin', permission: 'account'},
  /** Create, change, replace or delete a database (schema, public methods). */
  'db.manage': {role: 'manager'},
  /** Records of a database through the private API (create, update, delete, import). */
  'record.write': {role: 'user'},
  /** Create, change, replace or delete an app. */
  'app.write': {role: 'user'},
  /** Connectors and flows (resources): create, change, delete, run a flow by hand. */
  'resource.write': {role: 'user'},
  /** Point a connector that holds a secret at another host without giving the secret again. */
  'connector.repoint': {role: 'admin'},
  /** Crons. */
  'cron.write': {role: 'admin', permission: 'account'},
  /** Users of the account: list, create (with a token), revoke tokens and sessions. Admins only: no permission grants it. */
  'account.users': {role: 'admin'},
  /** Account settings (modules). */
  'account.settings': {role: 'admin', permission: 'account'},
} as const satisfies Record<string, {role: Role; permission?: string}>

export type Action = keyof typeof ACTIONS
const RANK: Record<Role, number> = {guest: 0, user: 1, manager: 2, admin: 3}

/** Whether the user may do `action`: a role at least the action's, or the action's permission. */
export function can(user: Pick<Principal, 'role' | 'permissions'>, action: Action): boolean {
  const rule: {role: Role; permission?: string} = ACTIONS[action]
  if ((RANK[user.role] ?? -1) >= RANK[rule.role]) return true
  return rule.permission !== undefined && hasPermission(user, rule.permission)
}

/** Why the user may not do `action` (for a 403), or null. */
export function refusal(user: Pick<Principal, 'role' | 'permissions'>, action: Action): string | null {
  if (can(user, action)) return null
  const rule: {role: Role; permission?: string} = ACTIONS[action]
  return `role ${rule.role}${rule.role === 'admin' ? '' : ' or higher'}${rule.permission ? ` or permission "${rule.permission}"` : ''} required`
}
