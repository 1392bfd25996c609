/** Phaser games, run on Phaser 4 with the Phaser 3 calls tutorials use bridged (docs/apps.md "Game engines"). */
import type {EngineSpec} from './types.js'

/**
 * A group's `children` is a native Set in Phaser 4: Phaser 3 code calls `group.children.iterate(fn)`
 * (the first-game tutorial does), so Set gets that one method (same contract: `fn(child, index)`,
 * returning false stops).
 */
export const PHASER_COMPAT = `if (!Set.prototype.iterate) Object.defineProperty(Set.prototype, 'iterate', {configurable: true, writable: true, value(fn, ctx, ...args) {
  let i = 0
  for (const child of [...this]) if (fn.call(ctx, child, i++, ...args) === false) break
}})
`

export const phaser: EngineSpec = {
  name: 'phaser',
  library: 'Phaser 4',
  sourceFile: 'game.js',
  language: 'ts',
  extensions: [],
  byContent: {extensions: ['js', 'mjs', 'ts'], rank: 1, recognizes: (source) => /from\s+['"]phaser['"]|\bnew\s+Phaser\.Game\b|\bPhaser\.(Scene|AUTO|WEBGL|CANVAS)\b/.test(source)},
  packages: ['esbuild', 'phaser'],
  compile: 'game',
  imports: ['phaser'],
  game: {
    lib: {name: 'phaser.esm.min.js', pkg: 'phaser', file: 'dist/phaser.esm.min.js'},
    importNames: ['phaser'],
    prelude: (lib) => `import * as P from ${JSON.stringify(lib)}\nconst Phaser = P.default ?? P\nglobalThis.Phaser = Phaser\n${PHASER_COMPAT}`,
  },
  page: {script: 'module', cssFramework: false, fullscreenCanvas: true},
  template: 'game.js',
  compat: ['Phaser 3 code: group.children.iterate(fn) is bridged on Phaser 4.'],
}
