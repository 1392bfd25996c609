/**
 * The one rule for "who is the client" used everywhere (`{ip}`, public rate limits, login limit,
 * flows): the connection's peer address; behind a trusted proxy (`--trust-proxy`), the right-most
 * `X-Forwarded-For` hop that is not itself a trusted proxy (the peer and loopback addresses).
 * Every hop left of it was written by the client and can be forged, so it never counts.
 */
import type {Context} from 'hono'
import type {AppEnv, Deps} from './env.js'

/** The address of an in-process request (no socket): the embedded CLI and tests. */
export const IN_PROCESS_IP = '127.0.0.1'

const unmapped = (address: string) => (address.toLowerCase().startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address)
const isLoopback = (address: string) => address === '::1' || /^127\./.test(address)

/** The socket peer of the request, or 127.0.0.1 in-process. */
export function peerOf(c: Context<AppEnv>): string {
  const remote = c.env?.incoming?.socket?.remoteAddress
  return remote ? unmapped(remote) : IN_PROCESS_IP
}

/** Pure form of the rule, for tests: the peer, and the X-Forwarded-For header (or undefined). */
export function clientIpOf(peer: string, forwardedFor: string | undefined, trustProxy: boolean): string {
  if (!trustProxy || !forwardedFor) return peer
  const trusted = (address: string) => address === peer || isLoopback(address)
  if (!trusted(peer)) return peer
  const hops = forwardedFor.split(',').map((s) => unmapped(s.trim())).filter((s) => s.length > 0 && s.length <= 64)
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted(hops[i]!)) return hops[i]!
  return hops[0] ?? peer
}

/** The client address of a request under `deps.trustProxy`. */
export function clientIp(c: Context<AppEnv>, deps: Pick<Deps, 'trustProxy'>): string {
  return clientIpOf(peerOf(c), c.req.header('x-forwarded-for'), deps.trustProxy ?? false)
}

/** Whether the client reached us over https: directly, or per a trusted proxy's right-most `X-Forwarded-Proto`. */
export function isHttps(c: Context<AppEnv>, deps: Pick<Deps, 'trustProxy'>): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true
  if (!deps.trustProxy) return false
  const proto = c.req.header('x-forwarded-proto')?.split(',').pop()?.trim().toLowerCase()
  return proto === 'https'
}
