import {FlowRunError, type JsonObject} from './data.js'

/** A method of a custom connector (`fields.methods[]`). */
export interface ConnectorMethod {
  name: string
  http_method: HttpMethod
  /** Appended to the connector's `url`; `{name}` segments are filled from the call's params. */
  path: string
  public: boolean
}

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

export interface ConnectorRequest {
  url: string
  method: HttpMethod
  /** JSON body (POST, PUT, PATCH), else undefined. */
  body?: string
}

const PATH_PARAM_RE = /\{([A-Za-z0-9_-]+)\}/g

/** Names of the `{name}` parameters of a method path. */
export const pathParams = (path: string) => [...path.matchAll(PATH_PARAM_RE)].map((m) => m[1]!)

const asParam = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)

/**
 * Builds the outgoing request of a connector method: path parameters are URL-encoded into the
 * path; the other params go to the query string (GET, DELETE) or to a JSON body (POST, PUT, PATCH).
 */
export function buildConnectorRequest(baseUrl: string, method: ConnectorMethod, params: JsonObject, label: string): ConnectorRequest {
  const rest: JsonObject = {...params}
  const path = method.path.replace(PATH_PARAM_RE, (_m, name: string) => {
    const value = params[name]
    if (value === undefined || value === null || value === '') throw new FlowRunError(`${label}: parameter "${name}" is required by the path`)
    delete rest[name]
    return encodeURIComponent(asParam(value))
  })
  const url = new URL(baseUrl.replace(/\/+$/, '') + path)
  if (method.http_method === 'GET' || method.http_method === 'DELETE') {
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) url.searchParams.append(key, asParam(value))
    return {url: url.toString(), method: method.http_method}
  }
  return {url: url.toString(), method: method.http_method, body: JSON.stringify(rest)}
}

/** Removes every occurrence of a secret from a text (error texts, response excerpts). */
export function redact(text: string, secret: string | null | undefined): string {
  if (!secret) return text
  return text.split(secret).join('[secret]')
}
