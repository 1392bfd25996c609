/**
 * One plan of everything a push would change: resources created, changed or deleted, each with a
 * unified text diff of its files (backend → folder). Pure: no I/O.
 */
import {createTwoFilesPatch} from 'diff'
import type {DbPlan} from '../dbs/plan.js'
import {KINDS, type Kind, type Resource} from './resources.js'

export type Action = 'create' | 'update' | 'delete'

export interface Change {
  action: Action
  kind: Kind
  key: string
  /** The backend's id of the resource (update, delete). */
  id?: string | number
  /** The ETag of the backend's version the diff was made on (update, delete): sent as If-Match, so a change made since is never overwritten. */
  etag?: string
  local?: Resource
  diff: string
  /** A db's create or update: the server's plan of it (data it drops, records it leaves invalid). */
  db?: DbPlan
  /** The backend's answer once applied: the synced state records what the backend stored. */
  saved?: Record<string, unknown>
}

export interface Plan {
  changes: Change[]
  /** On the backend only, left alone because --prune was not given. */
  kept: string[]
  unchanged: number
}

export interface RemoteResource extends Resource {
  id: string | number
  /** The backend's answer the files were made from. */
  row?: Record<string, unknown>
}

function fileDiff(before: Record<string, string>, after: Record<string, string>): string {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
  return paths
    .filter((p) => before[p] !== after[p])
    .map((p) => createTwoFilesPatch(before[p] === undefined ? '/dev/null' : `backend/${p}`, after[p] === undefined ? '/dev/null' : `folder/${p}`,
      before[p] ?? '', after[p] ?? '', undefined, undefined, {context: 3}).split('\n').slice(1).join('\n'))
    .join('')
}

/** Creates and updates in dependency order (connectors before flows, dbs before apps), deletes last in reverse. */
const order = (kind: Kind) => KINDS.indexOf(kind)

export function planPush(local: Resource[], remote: RemoteResource[], options: {prune: boolean}): Plan {
  const remoteByKey = new Map(remote.map((r) => [r.key, r]))
  const localKeys = new Set(local.map((r) => r.key))
  const changes: Change[] = []
  let unchanged = 0
  for (const r of local) {
    const there = remoteByKey.get(r.key)
    if (!there) changes.push({action: 'create', kind: r.kind, key: r.key, local: r, diff: fileDiff({}, r.files)})
    else {
      const diff = fileDiff(there.files, r.files)
      if (diff) changes.push({action: 'update', kind: r.kind, key: r.key, id: there.id, local: r, diff})
      else unchanged++
    }
  }
  const kept: string[] = []
  for (const r of remote) {
    if (localKeys.has(r.key)) continue
    if (options.prune) changes.push({action: 'delete', kind: r.kind, key: r.key, id: r.id, diff: fileDiff(r.files, {})})
    else kept.push(r.key)
  }
  changes.sort((a, b) => (a.action === 'delete' ? 1 : 0) - (b.action === 'delete' ? 1 : 0)
    || (a.action === 'delete' ? order(b.kind) - order(a.kind) : order(a.kind) - order(b.kind)) || a.key.localeCompare(b.key))
  return {changes, kept: kept.sort(), unchanged}
}

const SIGN: Record<Action, string> = {create: '+', update: '~', delete: '-'}
const VERB: Record<Action, string> = {create: 'create', update: 'change', delete: 'delete'}

/** One line per change: `+ create prompt prompts/hello.md`. */
export const describe = (c: Change) => `${SIGN[c.action]} ${VERB[c.action]} ${c.kind} ${c.key}`

export function summary(plan: Plan): string {
  const count = (a: Action) => plan.changes.filter((c) => c.action === a).length
  return `${count('create')} to create, ${count('update')} to change, ${count('delete')} to delete, ${plan.unchanged} unchanged`
    + (plan.kept.length ? `, ${plan.kept.length} only on the backend (kept; --prune deletes them)` : '')
}
