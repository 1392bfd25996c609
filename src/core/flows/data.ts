/**
 * The flow's data: a JSON object the steps read with `{path.to.value}` placeholders and write
 * with `into` / `set`. Only own properties are read; prototype names are refused.
 */
import type {FlowTrace} from './trace.js'

export type JsonObject = Record<string, unknown>

/** Thrown while running a program; its message is the run's error text. */
export class FlowRunError extends Error {
  /** Set by the runner: steps executed, the data and the trace when the run failed. */
  steps?: number
  data?: JsonObject
  trace?: FlowTrace
  /** A connector call that may succeed if tried again (no answer, a timeout, a 5xx or a 429): a run with retries tries it again. */
  retryable?: boolean
  constructor(message: string, retryable?: boolean) {
    super(message)
    this.name = 'FlowRunError'
    if (retryable) this.retryable = true
  }
}

const SEGMENT = '[A-Za-z0-9_-]+'
const PATH_RE = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})*$`)
const PLACEHOLDER_RE = new RegExp(`\\{(${SEGMENT}(?:\\.${SEGMENT})*)\\}`, 'g')
const WHOLE_PLACEHOLDER_RE = new RegExp(`^\\{(${SEGMENT}(?:\\.${SEGMENT})*)\\}$`)
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor'])
const MAX_PATH_LENGTH = 200

/** `a.b.0.c`: segments of letters, digits, `_`, `-`, none of them a prototype name. */
export function isValidPath(path: unknown): path is string {
  return typeof path === 'string' && path.length <= MAX_PATH_LENGTH && PATH_RE.test(path) && !path.split('.').some((s) => FORBIDDEN.has(s))
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object'

/** The value at `path` (own properties only, array indexes allowed), or undefined. */
export function getPath(data: unknown, path: string): unknown {
  let current: unknown = data
  for (const segment of path.split('.')) {
    if (FORBIDDEN.has(segment) || !isObject(current) || !Object.prototype.hasOwnProperty.call(current, segment)) return undefined
    current = (current as JsonObject)[segment]
  }
  return current
}

/** Writes `value` at `path`, creating objects on the way. An array index may append but not leave holes. */
export function setPath(data: JsonObject, path: string, value: unknown): void {
  if (!isValidPath(path)) throw new FlowRunError(`invalid path "${path}"`)
  const segments = path.split('.')
  let current: JsonObject = data
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    const last = i === segments.length - 1
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment) || Number(segment) > current.length) {
        throw new FlowRunError(`cannot set "${path}": "${segment}" is not an index of that array (length ${current.length})`)
      }
    }
    if (last) {
      ;(current as JsonObject)[segment] = value
      return
    }
    const next = Object.prototype.hasOwnProperty.call(current, segment) ? current[segment] : undefined
    if (!isObject(next)) current[segment] = {}
    current = current[segment] as JsonObject
  }
}

/** Paths named by `{...}` placeholders in a string. */
export function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER_RE)].map((m) => m[1]!)
}

/**
 * Replaces placeholders in a value, deeply. A string that is exactly one placeholder takes the
 * value itself (a number stays a number, a missing value becomes null); placeholders inside a
 * longer string are replaced by their text (objects as JSON, missing as "").
 */
export function interpolate(value: unknown, data: unknown, maxStringLength: number): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER_RE.exec(value)
    if (whole) {
      const found = getPath(data, whole[1]!)
      return found === undefined ? null : structuredClone(found)
    }
    let length = 0
    let out = ''
    let last = 0
    for (const m of value.matchAll(PLACEHOLDER_RE)) {
      const piece = value.slice(last, m.index) + asText(getPath(data, m[1]!))
      length += piece.length
      if (length > maxStringLength) throw new FlowRunError(`an interpolated string is longer than ${maxStringLength} characters`)
      out += piece
      last = m.index! + m[0].length
    }
    out += value.slice(last)
    if (out.length > maxStringLength) throw new FlowRunError(`an interpolated string is longer than ${maxStringLength} characters`)
    return out
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, data, maxStringLength))
  if (isObject(value)) {
    const out: JsonObject = {}
    for (const [k, v] of Object.entries(value)) out[k] = interpolate(v, data, maxStringLength)
    return out
  }
  return value
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value)
}

/** Byte length of a value as JSON (UTF-8). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8')
}
