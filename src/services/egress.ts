/**
 * Egress policy of connectors: a connector call goes out only to a public unicast address.
 * The host is resolved first; loopback, private, link-local (cloud metadata 169.254.169.254),
 * unique-local, carrier-grade NAT, unspecified, multicast, reserved and IPv4-in-IPv6 forms of
 * those are refused unless the server was started with `--allow-connector-hosts` naming the host,
 * the address or a CIDR range that holds it (`*` allows everything: the embedded CLI, one local
 * user). The connection is pinned to the address that was checked (no second DNS answer can swap
 * it: DNS rebinding), and redirects are never followed (connector-client.ts refuses them).
 * A refused call says "refused by egress policy" and nothing about what answered there.
 */
import {lookup as dnsLookup} from 'node:dns/promises'
import {request as httpRequest, type IncomingMessage} from 'node:http'
import {request as httpsRequest} from 'node:https'
import type {LookupFunction} from 'node:net'
import {Readable} from 'node:stream'
import ipaddr from 'ipaddr.js'

export const EGRESS_REFUSED = 'refused by egress policy'

export class EgressRefused extends Error {
  constructor(host: string) {
    super(`${host}: ${EGRESS_REFUSED} (a private, loopback, link-local or reserved address; see --allow-connector-hosts)`)
    this.name = 'EgressRefused'
  }
}

export interface EgressPolicy {
  /** Everything allowed (`*`). */
  any: boolean
  /** Host names allowed as written (lower case). */
  names: Set<string>
  /** Address ranges allowed. */
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][]
}

/** A DNS host name: labels of letters, digits, `-` and `_`, dot-separated. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/

/** The policy of `--allow-connector-hosts a,b,...` (host names, addresses, CIDR ranges, or `*`). Throws on a bad entry. */
export function egressPolicy(allow: readonly string[] = []): EgressPolicy {
  const policy: EgressPolicy = {any: false, names: new Set(), ranges: []}
  for (const raw of allow.flatMap((a) => a.split(',')).map((a) => a.trim().toLowerCase()).filter(Boolean)) {
    if (raw === '*') policy.any = true
    else if (raw.includes('/')) {
      try {
        policy.ranges.push(ipaddr.parseCIDR(raw))
      } catch {
        throw new Error(`--allow-connector-hosts: "${raw}" is not a CIDR range (like 10.0.0.0/8)`)
      }
    } else if (ipaddr.isValid(raw.replace(/^\[|\]$/g, ''))) {
      const address = ipaddr.parse(raw.replace(/^\[|\]$/g, ''))
      policy.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128])
    } else if (HOST_NAME.test(raw)) policy.names.add(raw)
    else throw new Error(`--allow-connector-hosts: "${raw}" is not a host name, address or CIDR range`)
  }
  return policy
}

/**
 * An address a connector may reach without an allow-list entry: public unicast only. An IPv4-mapped
 * address (`::ffff:a.b.c.d`) is judged as its IPv4 address. The rest of `::/8` (IPv4-compatible
 * `::a.b.c.d`, which URLs write `[::7f00:1]`, deprecated since RFC 4291, and the other reserved
 * forms) is refused, as are the ranges ipaddr.js does not call unicast: 6to4 `2002::/16`, Teredo
 * `2001::/32`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, SIIT `::ffff:0:0:0/96`, discard-only,
 * site-local, documentation. Each of these can carry an IPv4 address a tunnel or translator
 * would reach.
 */
export function isPublicAddress(address: string): boolean {
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast'
  const v6 = parsed as ipaddr.IPv6
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast'
  if (v6.match(RESERVED_ZERO_PREFIX)) return false
  return v6.range() === 'unicast'
}

/** `::/8`: IETF-reserved; holds `::`, `::1`, the IPv4-compatible `::/96` and the mapped `::ffff:0:0/96` (judged above). */
const RESERVED_ZERO_PREFIX = ipaddr.parseCIDR('::/8') as [ipaddr.IPv6, number]

function allowedByList(policy: EgressPolicy, address: string): boolean {
  const parsed = ipaddr.process(address)
  return policy.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))
}

/** The address to connect to for `host`, or EgressRefused. Every address the name resolves to must pass. */
export async function checkedAddress(host: string, policy: EgressPolicy): Promise<{address: string; family: number}> {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase()
  const listed = policy.any || policy.names.has(name)
  let addresses: {address: string; family: number}[]
  if (ipaddr.isValid(name)) addresses = [{address: name, family: ipaddr.parse(name).kind() === 'ipv4' ? 4 : 6}]
  else {
    try {
      addresses = await dnsLookup(name, {all: true, verbatim: true})
    } catch {
      throw new Error(`${host}: the host name does not resolve`)
    }
  }
  if (addresses.length === 0) throw new Error(`${host}: the host name does not resolve`)
  for (const a of addresses) {
    if (!listed && !isPublicAddress(a.address) && !allowedByList(policy, a.address)) throw new EgressRefused(host)
  }
  return addresses[0]!
}

export interface EgressInit {
  method: string
  headers: Record<string, string>
  body?: string
  signal: AbortSignal
}

const NULL_BODY = new Set([101, 103, 204, 205, 304])

/** `fetch` through the egress policy: one request, connected to the checked address, never following a redirect. */
export async function egressFetch(url: string, init: EgressInit, policy: EgressPolicy): Promise<Response> {
  const target = new URL(url)
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`${target.protocol} is not supported`)
  const pinned = await checkedAddress(target.hostname, policy)
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as {all?: boolean}).all) (callback as unknown as (e: null, a: {address: string; family: number}[]) => void)(null, [pinned])
    else callback(null, pinned.address, pinned.family)
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const message = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(target, {method: init.method, headers: init.headers, signal: init.signal, lookup}, resolve)
    req.on('error', reject)
    req.end(init.body)
  })
  const status = message.statusCode ?? 0
  if (status < 200 || status > 599) {
    message.destroy()
    throw new Error(`answered an invalid status ${status}`)
  }
  const headers = new Headers()
  for (const [k, v] of Object.entries(message.headers)) {
    if (v === undefined) continue
    for (const value of Array.isArray(v) ? v : [v]) headers.append(k, value)
  }
  const body = NULL_BODY.has(status) ? null : (Readable.toWeb(message) as ReadableStream<Uint8Array>)
  if (!body) message.resume()
  return new Response(body, {status, headers})
}
