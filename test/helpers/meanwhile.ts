/**
 * Someone else's change landing between a route's load and its store write, deterministically:
 * `meanwhile` runs when `target[method]` is called, before the real call, on the first `times`
 * calls — not on the calls `meanwhile` itself makes. Returns the restore.
 */
export function beforeCall<T extends object, K extends keyof T>(target: T, method: K, meanwhile: () => Promise<void>, times = 1): () => void {
  const real = target[method] as (...args: unknown[]) => Promise<unknown>
  let left = times
  let inside = false
  target[method] = (async (...args: unknown[]) => {
    if (!inside && left > 0) {
      left--
      inside = true
      try {
        await meanwhile()
      } finally {
        inside = false
      }
    }
    return real.apply(target, args)
  }) as T[K]
  return () => {
    target[method] = real as T[K]
  }
}
