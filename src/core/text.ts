/**
 * Text the server stores and searches: no NUL character (PostgreSQL's text and jsonb cannot hold
 * one; SQLite could, so the stores would disagree) and well-formed UTF-16 (a lone surrogate has no
 * UTF-8 form: PostgreSQL refuses `\ud800` in JSON, SQLite would keep a replacement character).
 * One rule for every store, checked where a request enters (src/http/router.ts).
 */
export const NUL_MESSAGE = 'must not contain a NUL character'
export const SURROGATE_MESSAGE = 'must be valid Unicode (it holds a lone surrogate)'

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** What is wrong with `text` as stored text, or undefined. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\0')) return NUL_MESSAGE
  if (LONE_SURROGATE.test(text)) return SURROGATE_MESSAGE
  return undefined
}

/**
 * The first string of parsed JSON, key or value, that is not storable text: the path of the value
 * (of the object, for a key: `key` says so) and the problem. Iterative: no recursion.
 */
export function unstorableText(value: unknown): {path: (string | number)[]; problem: string; key: boolean} | undefined {
  const stack: [unknown, (string | number)[]][] = [[value, []]]
  while (stack.length) {
    const [v, path] = stack.pop()!
    if (typeof v === 'string') {
      const problem = textProblem(v)
      if (problem) return {path, problem, key: false}
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, i]])
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v)
      for (const key of keys) {
        const problem = textProblem(key)
        if (problem) return {path, problem, key: true}
      }
      for (let i = keys.length - 1; i >= 0; i--) stack.push([(v as Record<string, unknown>)[keys[i]!], [...path, keys[i]!]])
    }
  }
  return undefined
}
