/**
 * Who may read and restore what the journal holds (docs/history.md): the resource's own rules. A
 * version is read by whoever may read the resource as it was then (a prompt of another user's scope,
 * a personal dashboard of someone else: not); a restore needs the kind's write permission.
 */
import {type Action, can, type Principal, refusal} from '../auth/permissions.js'
import {canView} from '../dashboards/access.js'
import type {JournalKind} from './types.js'

type Row = Record<string, unknown>

/** Whether `user` may read this version of a resource (the stored row of the journal). */
export function canReadVersion(user: Principal, kind: JournalKind, row: Row | null): boolean {
  if (!row) return false
  if (Number(row.account_id) !== user.accountId) return false
  switch (kind) {
    case 'prompt': {
      const scopeId = row.scope_id === null || row.scope_id === undefined ? null : Number(row.scope_id)
      switch (row.scope) {
        case 'account': return true
        case 'user': return scopeId === user.id
        case 'team': return scopeId !== null && user.teamIds.includes(scopeId)
        case 'department': return scopeId !== null && user.departmentIds.includes(scopeId)
        default: return false
      }
    }
    case 'dashboard':
      return canView(user, {shared: !!Number(row.shared), created_by_id: Number(row.created_by_id)})
    case 'user':
    case 'token':
      // Users and their tokens: what the account's admins manage (the users routes), read by them alone.
      return can(user, 'account.users')
    default:
      // Apps, dbs, records, flow resources, crons and db triggers are read by every signed-in user of the account.
      return true
  }
}

const WRITE_ACTION: Record<JournalKind, Action> = {
  prompt: 'prompt.write', dashboard: 'dashboard.write', app: 'app.write', db: 'db.manage', record: 'record.write',
  resource: 'resource.write', cron: 'cron.write', db_trigger: 'cron.write', user: 'account.users', token: 'account.users',
}

/** Why `user` may not restore a resource of `kind`, or null when they may. */
export function restoreRefusal(user: Principal, kind: JournalKind): string | null {
  return refusal(user, WRITE_ACTION[kind])
}
