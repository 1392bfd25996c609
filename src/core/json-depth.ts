/** How deep JSON from a request may nest: far beyond any real document, far below a stack overflow. */
export const MAX_JSON_DEPTH = 64

/** True when `value` (parsed JSON) nests objects/arrays deeper than `max`. Iterative: no recursion. */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth >= max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
  }
  return false
}
