import {compileExpression} from 'filtrex'
import {FlowRunError, getPath} from './data.js'

/**
 * Conditions of `if` steps, evaluated by filtrex (a sandboxed expression language; no eval of
 * user text). `{path.to.value}` placeholders read the flow's data, as do bare names
 * (`temperature > 30`, `json_object.temperature > 30`). Regular-expression matching (`~=`) is
 * refused: a pattern on data a public caller controls could stall the server.
 */

export type CompiledCondition = (data: unknown) => unknown

/** Rewrites `{a.b}` placeholders into filtrex quoted symbols `'a.b'`, leaving "string literals" alone. */
export function toFiltrex(condition: string): string {
  let out = ''
  let i = 0
  while (i < condition.length) {
    const ch = condition[i]!
    if (ch === '"') {
      let j = i + 1
      while (j < condition.length && condition[j] !== '"') j += condition[j] === '\\' ? 2 : 1
      out += condition.slice(i, j + 1)
      i = j + 1
      continue
    }
    if (ch === '~' && condition[i + 1] === '=') throw new Error('regular expressions (~=) are not supported in conditions')
    if (ch === '{') {
      const end = condition.indexOf('}', i)
      const path = end > i ? condition.slice(i + 1, end) : ''
      if (!/^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/.test(path)) throw new Error(`bad placeholder at position ${i + 1}`)
      out += `'${path}'`
      i = end + 1
      continue
    }
    out += ch
    i++
  }
  return out
}

const resolve = (name: string, _get: unknown, data: unknown) => getPath(data, name)

const extraFunctions = {
  contains: (haystack: unknown, needle: unknown) =>
    typeof haystack === 'string' && typeof needle === 'string' ? haystack.includes(needle)
      : Array.isArray(haystack) ? haystack.includes(needle) : false,
  starts_with: (s: unknown, p: unknown) => typeof s === 'string' && typeof p === 'string' && s.startsWith(p),
  ends_with: (s: unknown, p: unknown) => typeof s === 'string' && typeof p === 'string' && s.endsWith(p),
  lower: (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s),
  upper: (s: unknown) => (typeof s === 'string' ? s.toUpperCase() : s),
  length: (v: unknown) => (typeof v === 'string' || Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : 0),
  number: (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null),
  string: (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)),
}

/** Compiles a condition; throws an Error whose message explains what is wrong. */
export function compileCondition(condition: string): CompiledCondition {
  const expression = toFiltrex(condition)
  try {
    return compileExpression(expression, {customProp: resolve, extraFunctions}) as CompiledCondition
  } catch (error) {
    const message = (error as Error).message.split('\n').filter((l) => l.trim() !== '' && !/^-*\^$/.test(l.trim()))
    throw new Error(message.slice(0, 3).join(' ').slice(0, 300))
  }
}

/** Evaluates a compiled condition to true or false; a runtime error of the expression is a run error. */
export function evaluateCondition(condition: string, compiled: CompiledCondition, data: unknown): boolean {
  const result = compiled(data)
  if (result instanceof Error) throw new FlowRunError(`condition "${condition}": ${result.message}`)
  return Boolean(result)
}
