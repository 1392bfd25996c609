import type {Context} from 'hono'
import type {Principal} from '../../../core/auth/permissions.js'
import {notFound, payloadTooLarge, rateLimited} from '../../../core/errors.js'
import {jsonBytes} from '../../../core/flows/data.js'
import {isUuid} from '../../../core/flows/processes.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireCan} from '../../middleware/auth.js'
import {clientIp} from '../../client-ip.js'

/** `12.json` (route param) → 12; anything else is a 404. */
export function intParam(c: Context<AppEnv>, name: string): number {
  const raw = (c.req.param(name) ?? '').replace(/\.json$/, '')
  const id = Number(raw)
  if (!/^\d{1,15}$/.test(raw) || !Number.isSafeInteger(id) || id < 1) throw notFound()
  return id
}

/** `<uuid>.json` or `<uuid>` (route param) → the UUID, lower-cased; anything else is a 404. */
export function uuidParam(c: Context<AppEnv>, name: string): string {
  const raw = (c.req.param(name) ?? '').replace(/\.json$/, '')
  if (!isUuid(raw)) throw notFound()
  return raw.toLowerCase()
}

/** A signed-in user who may change connectors and flows (the roles table's `resource.write`). */
export function requireWriter(c: Context<AppEnv>): Principal {
  return requireCan(c, 'resource.write')
}

/** The `{ip}` of decisions.md, by the server's one client-address rule (src/http/client-ip.ts). */
export function clientAddress(c: Context<AppEnv>, deps: Deps): string {
  return clientIp(c, deps)
}

/** A token bucket per client address, shared by every instance over the store (see ClusterRepo.takeToken). */
export interface RateSpec {
  bucket: string
  capacity: number
  perMinute: number
}

/** 429 with `Retry-After` when the client address has no token left. */
export async function limit(c: Context<AppEnv>, deps: Deps, rate: RateSpec): Promise<void> {
  const wait = await deps.store.cluster.takeToken(rate.bucket, clientAddress(c, deps), rate.capacity, rate.perMinute)
  if (wait > 0) {
    c.header('Retry-After', String(wait))
    throw rateLimited(`too many requests; retry in ${wait} s`)
  }
}

/** A run's input must stay within the runner's bound. */
export function checkInputSize(input: unknown, max: number): void {
  if (jsonBytes(input) > max) throw payloadTooLarge(`the input is larger than ${max} bytes`)
}
