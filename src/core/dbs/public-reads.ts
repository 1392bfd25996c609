/**
 * Rate limits of anonymous public reads (`list`, `search`, `get` of /svc/db/:db_code/...): budgets
 * of server time per visitor, per client address and per database (quotas `public_read_ms_per_*`,
 * src/core/quotas.ts). Time, not a count of requests: a scan of 300,000 records costs what it
 * costs, a read of one record almost nothing, and a flooder gets the same bounded share of the
 * server whichever it sends. The buckets themselves are the store's (src/core/budgets.ts).
 */
import type {BudgetHit} from '../budgets.js'
import {rateLimited, type SvcError} from '../errors.js'
import type {Quotas} from '../quotas.js'

/**
 * Public methods that read (the writes have their own limits: SVC_DB_PUBLIC_WRITES and byte budgets).
 * `subscribe` is charged the time its feed took to open: the replay of what followed its
 * Last-Event-ID (an old bookmark reads the journal from there), not the hours it then stays open.
 */
export const PUBLIC_READS: ReadonlySet<string> = new Set(['list', 'search', 'get', 'subscribe'])

/** What a read is charged at least, in ms (a read answered from memory still parsed a request and wrote an answer). */
export const MIN_READ_CHARGE_MS = 1

/**
 * The key of a client address: IPv4 as it is; IPv6 by its /64 (one host is usually handed a
 * whole /64, so its addresses are one client), written as its first four groups.
 */
export function addressKey(ip: string): string {
  if (!ip.includes(':')) return ip
  const [head = '', tail = ''] = ip.toLowerCase().split('::', 2)
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  if (right.some((g) => g.includes('.'))) right.splice(-1, 1, '0', '0') // an embedded IPv4 is two groups
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left
  return groups.slice(0, 4).map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? g.replace(/^0+(?=.)/, '') : g.slice(0, 8))).join(':') + '::/64'
}

export interface Reader {
  /** A stable id of the visitor when known: `u:<user id>` (signed in to another account) or `c:<cookie key>`; '' when not. */
  visitor: string
  /** The client address (src/http/client-ip.ts). */
  ip: string
  /** The database read. */
  dbId: number
}

/** A budget a read draws on, with what a refusal by it says. */
export interface ReadBudget extends BudgetHit {
  /** Whose budget, in a refusal: "by this visitor", "from this client address", "of this database". */
  whose: string
  perMinuteMs: number
}

/** The budgets a read draws on (those turned off, and the visitor's when unknown, are left out). */
export function readBudgets(quotas: Pick<Quotas, 'public_read_ms_per_visitor' | 'public_read_ms_per_ip' | 'public_read_ms_per_db'>, reader: Reader): ReadBudget[] {
  const out: ReadBudget[] = []
  const add = (bucket: string, key: string, perMinute: number, whose: string) => {
    if (perMinute > 0) out.push({bucket, key, capacity: perMinute, perMinute, whose, perMinuteMs: perMinute})
  }
  if (reader.visitor) add('db-read-visitor', reader.visitor, quotas.public_read_ms_per_visitor, 'by this visitor')
  add('db-read-ip', addressKey(reader.ip), quotas.public_read_ms_per_ip, 'from this client address')
  add('db-read-db', String(reader.dbId), quotas.public_read_ms_per_db, 'of this database (all its visitors together)')
  return out
}

/**
 * The 429 of a read one of `budgets` refuses (`waits` in seconds, one per budget, 0 = lets it
 * through), or null when all let it through. `Retry-After` is the longest wait.
 */
export function readRefusal(budgets: readonly ReadBudget[], waits: readonly number[]): SvcError | null {
  let worst = -1
  for (let i = 0; i < budgets.length; i++) if ((waits[i] ?? 0) > 0 && (worst < 0 || waits[i]! > waits[worst]!)) worst = i
  if (worst < 0) return null
  const b = budgets[worst]!
  const wait = waits[worst]!
  return rateLimited(`too many public reads ${b.whose}: they may take ${b.perMinuteMs} ms of server time a minute; retry in ${wait} s`, wait)
}
