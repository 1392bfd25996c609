/**
 * A tool's input schema, generated from its operation in the OpenAPI document (the contract): path
 * parameters (required), the picked query parameters, the picked members of the JSON body. Schemas
 * are inlined ($ref resolved) and trimmed of what costs an agent's context without telling it
 * anything (empty defaults, open `additionalProperties`, nested object shapes below the first level).
 */
import {OPERATIONS} from '../core/contract/operations.js'
import type {ToolSpec} from './tools.js'

export type JsonSchema = Record<string, unknown>

interface Parameter {
  name: string
  in: string
  required?: boolean
  description?: string
  schema?: JsonSchema
}

interface Operation {
  summary?: string
  parameters?: Parameter[]
  requestBody?: {content?: Record<string, {schema?: JsonSchema}>}
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>
  components?: {schemas?: Record<string, JsonSchema>}
}

export interface ToolInput {
  [key: string]: unknown
  type: 'object'
  properties: Record<string, JsonSchema>
  required?: string[]
  additionalProperties: false
}

/** The operation of `op` in the document, or an error naming it (a server of another version). */
export function operationOf(doc: OpenApiDocument, op: ToolSpec['op']): Operation {
  const {method, path} = OPERATIONS[op]
  const found = doc.paths?.[path]?.[method]
  if (!found) throw new Error(`the server's API has no operation ${op} (${method.toUpperCase()} ${path})`)
  return found
}

function resolve(doc: OpenApiDocument, schema: JsonSchema | undefined, seen = 0): JsonSchema {
  if (!schema) return {}
  const ref = schema.$ref
  if (typeof ref === 'string' && seen < 8) {
    const name = ref.replace('#/components/schemas/', '')
    const target = doc.components?.schemas?.[name]
    return resolve(doc, target, seen + 1)
  }
  return schema
}

const isEmptyObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0

/** An argument's schema: resolved, without noise, nested shapes cut below `depth`. */
function compact(doc: OpenApiDocument, raw: JsonSchema | undefined, depth: number): JsonSchema {
  const schema = resolve(doc, raw)
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'default' && isEmptyObject(value)) continue
    if (key === 'additionalProperties' && (value === true || isEmptyObject(value))) continue
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue
    if (key === 'maxLength' && typeof value === 'number' && value >= 1000) continue
    if (key === 'example' || key === 'examples') continue
    out[key] = value
  }
  // A query number is a digit string to the API; an agent may send it as a number (the call turns it back into text).
  if (out.type === 'string' && out.pattern === '^[0-9]+$') {
    delete out.pattern
    out.type = ['integer', 'string']
    if (out.minimum === undefined) out.minimum = 0
  }
  const typeOf = out.type
  const isObject = typeOf === 'object' || (Array.isArray(typeOf) && typeOf.includes('object'))
  if (isObject && out.properties) {
    if (depth <= 0) {
      delete out.properties
      delete out.required
      out.additionalProperties = true
    } else {
      out.properties = Object.fromEntries(Object.entries(out.properties as Record<string, JsonSchema>).map(([k, v]) => [k, compact(doc, v, depth - 1)]))
    }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(out[key])) out[key] = (out[key] as JsonSchema[]).map((v) => compact(doc, v, depth - 1))
  }
  if (out.items && typeof out.items === 'object') out.items = compact(doc, out.items as JsonSchema, depth - 1)
  return out
}

/** The members of the operation's JSON body (inside its envelope when the tool names one). */
function bodyMembers(doc: OpenApiDocument, op: Operation, envelope: string | undefined): {properties: Record<string, JsonSchema>; required: string[]} {
  let schema = resolve(doc, op.requestBody?.content?.['application/json']?.schema)
  if (envelope) schema = resolve(doc, (schema.properties as Record<string, JsonSchema> | undefined)?.[envelope])
  return {properties: (schema.properties as Record<string, JsonSchema> | undefined) ?? {}, required: (schema.required as string[] | undefined) ?? []}
}

/** The input schema of `spec` from the document. */
export function toolInput(doc: OpenApiDocument, spec: ToolSpec): ToolInput {
  const op = operationOf(doc, spec.op)
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  const describe = (name: string, schema: JsonSchema, fallback?: string) => {
    const description = spec.describe?.[name] ?? fallback ?? (schema.description as string | undefined)
    const {description: _drop, ...rest} = schema
    properties[name] = description ? {...rest, description} : rest
  }
  for (const param of op.parameters ?? []) {
    if (param.in === 'path') {
      describe(param.name, {type: 'string'}, param.description)
      required.push(param.name)
    } else if (param.in === 'query' && spec.query?.includes(param.name)) {
      describe(param.name, compact(doc, param.schema, 1), param.description)
      if (param.required) required.push(param.name)
    }
  }
  if (spec.body && 'members' in spec.body) {
    const body = bodyMembers(doc, op, spec.body.envelope)
    for (const name of spec.body.members) {
      const schema = body.properties[name]
      if (!schema) throw new Error(`the server's ${spec.op} body has no member ${name}`)
      describe(name, compact(doc, schema, 1))
      if (body.required.includes(name)) required.push(name)
    }
  }
  for (const [name, schema] of Object.entries(spec.extra ?? {})) describe(name, schema)
  return {type: 'object', properties, ...(required.length ? {required} : {}), additionalProperties: false}
}
