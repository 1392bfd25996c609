/**
 * kaboom games, run on kaplay 3001 (kaboom's maintained successor). `kaboom()` (the old name)
 * also defines the kaboom 2000 globals kaplay renamed (docs/apps.md "Game engines").
 */
import type {EngineSpec} from './types.js'

/** Bridges run before the game: `gravity(n)` (now `setGravity`), `origin(pos)` (now `anchor`). */
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

export const kaboom: EngineSpec = {
  name: 'kaboom',
  library: 'kaplay 3001',
  sourceFile: 'game.js',
  language: 'ts',
  extensions: [],
  byContent: {extensions: ['js', 'mjs', 'ts'], rank: 2, recognizes: (source) => /from\s+['"](kaboom|kaplay)['"]|\b(kaboom|kaplay)\s*\(/.test(source)},
  packages: ['esbuild', 'kaplay'],
  compile: 'game',
  imports: ['kaboom', 'kaplay'],
  game: {
    lib: {name: 'kaplay.mjs', pkg: 'kaplay', file: 'dist/kaplay.mjs'},
    importNames: ['kaboom', 'kaplay'],
    prelude: (lib) => `import kaplay from ${JSON.stringify(lib)}\nglobalThis.kaplay = kaplay\n${KABOOM_COMPAT}`,
  },
  page: {script: 'module', cssFramework: false, fullscreenCanvas: true},
  template: 'game.js',
  compat: ['kaboom() starts kaplay; gravity(n) and origin(pos) of kaboom 2000 are defined.'],
}
