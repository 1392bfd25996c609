import {buildConnectorRequest, redact, redactExcerpt, redactValue, type ConnectorMethod} from '../../core/flows/connector.js'
import {FlowRunError, type JsonObject} from '../../core/flows/data.js'
import type {ConnectorSeen} from '../../core/flows/run.js'
import {CONNECTOR_KIND, type Resource} from '../../core/flows/resources.js'
import type {Store} from '../../store/types.js'
import {EgressRefused, egressFetch, egressPolicy, type EgressPolicy} from '../egress.js'

/** Characters of an upstream error's text kept in the error (after redaction). */
const ERROR_EXCERPT = 200

export interface ConnectorLimits {
  connectorTimeoutMs: number
  maxResponseBytes: number
  /** Where connectors may go (src/services/egress.ts); default: public unicast addresses only. */
  egress?: EgressPolicy
}

/** The method of a connector resource by name, or undefined. */
export function connectorMethod(connector: Resource, name: string): ConnectorMethod | undefined {
  const methods = Array.isArray(connector.fields.methods) ? (connector.fields.methods as ConnectorMethod[]) : []
  return methods.find((m) => m.name === name)
}

/** Finds a connector of the account by code and calls one of its methods (what it sent and got noted in `seen`). */
export async function callAccountConnector(
  store: Store, accountId: number, code: string, method: string, params: JsonObject, signal: AbortSignal, limits: ConnectorLimits,
  seen?: ConnectorSeen, flowRun?: string,
): Promise<unknown> {
  const connector = await store.flows.findResource(accountId, CONNECTOR_KIND, code)
  if (!connector) throw new FlowRunError(`connector "${code}" not found`)
  const m = connectorMethod(connector, method)
  if (!m) throw new FlowRunError(`connector "${code}" has no method "${method}"`)
  return callConnector(store, accountId, connector, m, params, signal, limits, seen, flowRun)
}

/**
 * The header a flow run's connector calls carry: the run's id. A receiver may dedupe on it (a retried
 * call carries the same id); this server journals a write that carries it with the connector's secret as
 * the run's (door `flow`, src/http/middleware/journal-who.ts), and such a write starts no db trigger.
 */
export const FLOW_RUN_HEADER = 'x-svc-flow-run'

/**
 * Calls a connector method over HTTP with the stored secret as `Authorization: Bearer`. The
 * answer is parsed as JSON (else kept as text). Errors are FlowRunError texts that never carry
 * the secret; redirects are refused (the bearer header must not follow them elsewhere). `seen`
 * gets the request's parameters (no header, the secret redacted) and the upstream status.
 */
export async function callConnector(
  store: Store, accountId: number, connector: Resource, method: ConnectorMethod, params: JsonObject,
  signal: AbortSignal, limits: ConnectorLimits, seen: ConnectorSeen = {}, flowRun?: string,
): Promise<unknown> {
  const label = `${connector.code}.${method.name}`
  if (!connector.url) throw new FlowRunError(`connector "${connector.code}" has no url`)
  const secret = connector.has_secret_token ? await store.flows.resourceSecret(accountId, connector.id) : null
  const request = buildConnectorRequest(connector.url, method, params, label)
  seen.request = redactValue(request.view, secret) as JsonObject
  const headers: Record<string, string> = {accept: 'application/json, text/plain;q=0.9, */*;q=0.5', 'user-agent': 'svc-flows'}
  if (secret) headers.authorization = `Bearer ${secret}`
  if (flowRun) headers[FLOW_RUN_HEADER] = flowRun
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  const timeout = AbortSignal.timeout(limits.connectorTimeoutMs)
  const combined = AbortSignal.any([signal, timeout])
  try {
    const res = await egressFetch(request.url, {method: request.method, headers, body: request.body, signal: combined}, limits.egress ?? egressPolicy())
    seen.status = res.status
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel()
      throw new FlowRunError(`${label} answered a redirect (${res.status}); redirects are not followed`)
    }
    const text = await readCapped(res, limits.maxResponseBytes, label)
    if (!res.ok) {
      // Redacted whole before the cut: a secret straddling it would otherwise show in part.
      const excerpt = redactExcerpt(text, ERROR_EXCERPT, secret)
      throw new FlowRunError(`${label} answered ${res.status}${excerpt ? `: ${excerpt}` : ''}`, res.status >= 500 || res.status === 429)
    }
    if (text.trim() === '') return null
    // An upstream that echoes the request (headers included) must not hand the secret to the caller.
    try {
      return redactValue(JSON.parse(text), secret)
    } catch {
      return redact(text, secret)
    }
  } catch (error) {
    if (error instanceof FlowRunError) throw new FlowRunError(redact(error.message, secret), error.retryable)
    if (error instanceof EgressRefused) throw new FlowRunError(`${label}: ${error.message}`)
    if (timeout.aborted) throw new FlowRunError(`${label} did not answer within ${limits.connectorTimeoutMs} ms`, true)
    if (signal.aborted) {
      const reason = signal.reason as Error | undefined
      throw new FlowRunError(reason?.name === 'TimeoutError' ? 'the run took too long and was stopped' : reason?.message || 'the run was stopped')
    }
    // No error code or text from the socket: "connection refused" against "timed out" would tell a
    // caller which ports are open (a port-scan oracle).
    throw new FlowRunError(redact(`${label}: cannot reach ${new URL(request.url).host}`, secret), true)
  }
}

/** Reads a response body as UTF-8 text, refusing more than `max` bytes. */
async function readCapped(res: Response, max: number, label: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel()
    throw new FlowRunError(`${label}: the answer is larger than ${max} bytes`)
  }
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const {done, value} = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      throw new FlowRunError(`${label}: the answer is larger than ${max} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
