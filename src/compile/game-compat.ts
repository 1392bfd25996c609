/**
 * Code that runs before a game, so the code people find in tutorials keeps working on the
 * engines the server ships (docs/apps.md "Game engines"):
 * - phaser is Phaser 4, where a group's `children` is a native Set: Phaser 3 code calls
 *   `group.children.iterate(fn)` (the first-game tutorial does), so Set gets that one method
 *   (same contract: `fn(child, index)`, returning false stops).
 * - kaboom is kaplay 3001. `kaboom()` (the old name) also defines the kaboom 2000 globals that
 *   kaplay renamed: `gravity(n)` (now `setGravity`) and `origin(pos)` (now `anchor`).
 */
export const PHASER_COMPAT = `if (!Set.prototype.iterate) Object.defineProperty(Set.prototype, 'iterate', {configurable: true, writable: true, value(fn, ctx, ...args) {
  let i = 0
  for (const child of [...this]) if (fn.call(ctx, child, i++, ...args) === false) break
}})
`

export const KABOOM_COMPAT = `const svcKaplay = globalThis.kaplay
globalThis.kaboom = (options) => {
  const k = svcKaplay(options)
  if (!options || options.global !== false) {
    if (typeof globalThis.gravity !== 'function') globalThis.gravity = (g) => (g === undefined ? k.getGravity() : k.setGravity(g))
    globalThis.origin = k.anchor
  }
  return k
}
`
