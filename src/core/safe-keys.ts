/**
 * Names a user may not choose where they become object keys the server reads back (schema field
 * names, sort and filter parameters, template variables): every property of Object.prototype and
 * `prototype`. Objects indexed by user keys are also built without a prototype (`dict()`) and read
 * with `own()`, so an inherited property is never mistaken for user data.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype'])

export const isReservedName = (name: string): boolean => RESERVED_NAMES.has(name)

/** An empty object without a prototype: `dict()['constructor']` is undefined, `__proto__` is a plain key. */
export const dict = <T>(): Record<string, T> => Object.create(null) as Record<string, T>

/** `obj[key]` when `obj` has it as its own property, else undefined. */
export const own = (obj: object, key: string): unknown => (Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined)

/**
 * Any value as text for a message, never throwing: a request's JSON may hold an object whose
 * `toString`/`valueOf` are not functions (`{"toString": 1}`), which `String(v)` and `${v}` throw
 * on. Strings as they are, other primitives as String() writes them, objects and arrays as JSON.
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === null || typeof value !== 'object') return String(value)
  try {
    return JSON.stringify(value) ?? typeof value
  } catch {
    return Array.isArray(value) ? 'an array' : 'an object'
  }
}
