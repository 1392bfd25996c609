/**
 * Games (registry engines with `compile: 'game'`): the source is bundled with esbuild, the engine
 * library is NOT: its import is mapped to a file the server serves once with long cache headers.
 * The engine's prelude sets its globals and compat bridges before the game code runs.
 */
import {engineSpec, gameLibOfImport, importsOf} from '../engines/index.js'
import {CompileError, importedPackage, localImportError, locate} from './errors.js'
import {libUrl} from './libs.js'

export async function gameCompile(engineName: string, source: string): Promise<string> {
  const local = localImportError(source)
  if (local) throw local
  const engine = engineSpec(engineName)
  const game = engine.game!
  const esbuild = await import('esbuild')
  const lib = libUrl(game.lib)
  const prelude = game.prelude('svc-engine')
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
              if (args.path === 'svc-engine') return {path: lib, external: true}
              const named = gameLibOfImport(args.path)
              if (named) {
                if (named.engine.name !== engine.name) {
                  return {errors: [{text: `import "${importedPackage(args.path)}" does not match the app engine ${engine.name}`}]}
                }
                return {path: lib, external: true}
              }
              if (/^https?:\/\//.test(args.path)) return {path: args.path, external: true}
              return {errors: [{text: `import "${importedPackage(args.path)}" is not available (a ${engine.name} app may import only ${importsOf(engine.name).replace(', ', ' or ')})`}]}
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
