import type {Context} from 'hono'
import type {Principal} from '../../../core/auth/permissions.js'
import {forbidden, notFound, payloadTooLarge, rateLimited} from '../../../core/errors.js'
import {jsonBytes} from '../../../core/flows/data.js'
import {isUuid} from '../../../core/flows/processes.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireUser} from '../../middleware/auth.js'

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

/** A signed-in user who may change resources (every role but `guest`). */
export function requireWriter(c: Context<AppEnv>): Principal {
  const user = requireUser(c)
  if (user.role === 'guest') throw forbidden('guests cannot change connectors, flows or crons')
  return user
}

/** The `{ip}` of decisions.md: the peer address; the last X-Forwarded-For entry only with --trust-proxy. */
export function clientAddress(c: Context<AppEnv>, deps: Deps): string {
  if (deps.trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').map((s) => s.trim()).filter(Boolean)
    if (forwarded?.length) return forwarded[forwarded.length - 1]!
  }
  return c.env?.incoming?.socket?.remoteAddress ?? 'local'
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
