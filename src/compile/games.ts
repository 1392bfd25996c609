/**
 * kaboom (kaplay, its maintained successor) and phaser: the source is bundled with esbuild, the
 * engine library is NOT: its import is mapped to a file the server serves once with long cache
 * headers. Globals (`kaboom()`, `kaplay()`, `Phaser`) are set before the game code runs.
 */
import {CompileError, importedPackage, localImportError, locate} from './errors.js'
import {KABOOM_COMPAT, PHASER_COMPAT} from './game-compat.js'
import {libUrl} from './libs.js'

export type GameEngine = 'kaboom' | 'phaser'

export async function gameCompile(engine: GameEngine, source: string): Promise<string> {
  const local = localImportError(source)
  if (local) throw local
  const esbuild = await import('esbuild')
  const lib = engine === 'phaser' ? libUrl('phaser.esm.min.js') : libUrl('kaplay.mjs')
  const prelude = engine === 'phaser'
    ? `import * as P from 'svc-engine'\nconst Phaser = P.default ?? P\nglobalThis.Phaser = Phaser\n${PHASER_COMPAT}`
    : `import kaplay from 'svc-engine'\nglobalThis.kaplay = kaplay\n${KABOOM_COMPAT}`
  try {
    const result = await esbuild.build({
      stdin: {contents: `import './svc-prelude'\nimport './game.js'\n`, resolveDir: '/', sourcefile: 'entry.js'},
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2022',
      minify: true,
      // Inline source map of the game's own code (the engine is served apart): stack traces and
      // devtools show game.js as written.
      sourcemap: 'inline',
      sourcesContent: true,
      logLevel: 'silent',
      // No tsconfig.json is looked for on the server's disk.
      tsconfigRaw: {},
      plugins: [
        {
          name: 'svc-game',
          setup(build) {
            build.onResolve({filter: /.*/}, (args) => {
              if (args.path === './svc-prelude') return {path: 'prelude', namespace: 'svc'}
              if (args.path === './game.js' && args.namespace !== 'svc-game') return {path: 'game.js', namespace: 'svc-game'}
              if (args.path === 'svc-engine' || /^(phaser|kaboom|kaplay)(\/.*)?$/.test(args.path)) {
                const wanted = args.path.split('/')[0]
                if (args.path !== 'svc-engine' && (wanted === 'phaser') !== (engine === 'phaser')) {
                  return {errors: [{text: `import "${importedPackage(args.path)}" does not match the app engine ${engine}`}]}
                }
                return {path: lib, external: true}
              }
              if (/^https?:\/\//.test(args.path)) return {path: args.path, external: true}
              return {errors: [{text: `import "${importedPackage(args.path)}" is not available (a ${engine} app may import only ${engine === 'phaser' ? 'phaser' : 'kaboom or kaplay'})`}]}
            })
            build.onLoad({filter: /.*/, namespace: 'svc'}, () => ({contents: prelude, loader: 'js'}))
            // The ts loader also takes plain JavaScript: TypeScript type annotations are stripped.
            build.onLoad({filter: /.*/, namespace: 'svc-game'}, () => ({contents: source, loader: 'ts'}))
          },
        },
      ],
    })
    return result.outputFiles[0]!.text
  } catch (error) {
    if (error instanceof CompileError) throw error
    throw locate(error, 'game.js').within(source)
  }
}
