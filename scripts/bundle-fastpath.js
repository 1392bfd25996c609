// Bundles the `svc prompt render` fast path of bin/run.js (Node 20 has no compile cache: every file
// a start resolves, reads and compiles counts). Part of `npm run build`, after tsc.
//
// - dist/fastpath-prompt-render.cjs: the render on a local data dir, one CommonJS file that bin/run.js
//   (itself CommonJS) loads with a V8 code cache (src/fastpath/code-cache.ts): no ES module loader,
//   one file, one cache. It holds liquidjs and better-sqlite3's JavaScript (not its addon) too, put
//   into require's cache under their own file names, where the code that requires them finds them.
//   `crypto` is loaded when first used (liquidjs and the repositories import it; a render on the
//   local data dir may never call it): ~5 ms of a start.
// - dist/code-cache.cjs: that loader, for bin/run.js.
// - dist/fastpath-backend-render.js plus chunks (dist/fastpath-chunk-*.js): the render through a
//   server or the embedded app on PostgreSQL (src/fastpath/backend-render.ts), an ES module, loaded
//   only for those targets.
import {build} from 'esbuild'
import {readdirSync, readFileSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'

const require = createRequire(import.meta.url)

const dist = new URL('../dist/', import.meta.url).pathname
// The previous build's files and their code caches (a cache's name holds its bundle's size and mtime).
for (const f of readdirSync(dist)) if (/^(fastpath-|code-cache\.cjs$|liquid\.node\.js\..*\.v8cache$)/.test(f)) rmSync(dist + f)

const external = ['better-sqlite3', 'pg', 'liquidjs', 'vite', 'svelte', 'vue', 'react', 'react-dom', 'esbuild', 'tailwindcss', 'kaplay', 'phaser', 'croner',
  'filtrex', 'chokidar', 'cli-table3', 'diff', '@sveltejs/*', '@vitejs/*', '@tailwindcss/*', '@inquirer/*', '@oclif/*']
const common = {bundle: true, platform: 'node', target: 'node20', minify: true, logLevel: 'error'}

await build({
  ...common,
  entryPoints: {'fastpath-backend-render': dist + 'fastpath/backend-render.js'},
  // Chunks at dist/ level too, so `import.meta.url`-relative paths (the package root) resolve as from dist/*.js.
  outdir: dist,
  chunkNames: 'fastpath-chunk-[hash]',
  splitting: true,
  format: 'esm',
  external,
})

await build({...common, entryPoints: [dist + 'fastpath/code-cache.js'], outfile: dist + 'code-cache.cjs', format: 'cjs'})

/**
 * Built-in modules as objects that require them at their first use: liquidjs requires `crypto` and
 * `stream`, the repositories import `crypto` and the `--vars` reader `fs/promises` (which brings
 * streams, readline and fs watchers), and a render on a local data dir may use none of them
 * (~6 ms of a start). Their names are listed without loading them: a bundled ES module's import
 * copies a module's names (esbuild's __toESM), and each name reads the module when first used.
 */
const LAZY_BUILTINS = ['crypto', 'stream', 'fs/promises']
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`)
    b.onResolve({filter}, (args) => {
      const name = args.path.replace(/^node:/, '')
      return args.namespace === 'lazy-builtin' ? {path: `node:${name}`, external: true} : {path: name, namespace: 'lazy-builtin'}
    })
    b.onLoad({filter: /.*/, namespace: 'lazy-builtin'}, (args) => ({
      loader: 'js',
      contents: `let real
        const load = () => real ??= require('node:${args.path}')
        const names = ${JSON.stringify(Object.keys(require(`node:${args.path}`)))}
        module.exports = new Proxy({}, {
          get: (_, key) => load()[key],
          has: (_, key) => key in load(),
          ownKeys: () => real ? Reflect.ownKeys(real) : [...names],
          getOwnPropertyDescriptor: (_, key) => {
            if (!real && names.includes(key)) return {configurable: true, enumerable: true, get: () => load()[key]}
            const d = Object.getOwnPropertyDescriptor(load(), key)
            return d && {...d, configurable: true}
          },
        })`,
    }))
  },
}

/**
 * liquidjs reads `global.performance` for its render time limit, which makes Node load perf_hooks
 * (ten modules); a monotonic clock in ms is all it uses (`now()`, differences of two readings).
 */
const liquidClock = {
  name: 'liquid-clock',
  setup(b) {
    b.onLoad({filter: /liquidjs[\\/]dist[\\/]liquid\.node\.js$/}, async (args) => {
      const find = "(typeof global === 'object' && global.performance)"
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes(find)) throw new Error(`scripts/bundle-fastpath.js: liquidjs no longer contains ${find}`)
      return {contents: source.replace(find, '({now: () => Number(process.hrtime.bigint()) / 1e6})'), loader: 'js'}
    })
  },
}

// The entry: bundled liquidjs and better-sqlite3 go into require's cache first (src/core/prompts/render.ts
// and src/store/sqlite/connection.ts require them by name), then the fast path itself.
const entry = `
const Module = require('node:module')
const {dirname} = require('node:path')
function provide(specifier, exports) {
  const filename = require.resolve(specifier)
  if (require.cache[filename]) return
  const cached = new Module(filename)
  cached.filename = filename
  cached.paths = Module._nodeModulePaths(dirname(filename))
  cached.exports = exports
  cached.loaded = true
  require.cache[filename] = cached
}
provide('liquidjs', require('liquidjs'))
provide('better-sqlite3', require('better-sqlite3'))
module.exports = require('./fastpath/prompt-render.js')
`
const result = await build({
  ...common,
  stdin: {contents: entry, resolveDir: dist, sourcefile: 'fastpath-entry.cjs', loader: 'js'},
  outfile: dist + 'fastpath-prompt-render.cjs',
  format: 'cjs',
  // The bundle sits in dist/ as the tsc output's files: paths relative to the file (the package root) are the same.
  define: {'import.meta.url': '__svcFileUrl'},
  banner: {js: 'var __svcFileUrl = require("node:url").pathToFileURL(__filename).href;'},
  // better-sqlite3 asks `bindings` for its addon only when not given its path (src/store/sqlite/connection.ts gives it).
  external: ['bindings'],
  plugins: [lazyBuiltins, liquidClock],
  metafile: true,
})
// SVC_BUNDLE_REPORT=1: what the file holds, by size.
if (process.env.SVC_BUNDLE_REPORT) {
  const {inputs} = Object.values(result.metafile.outputs)[0]
  for (const [file, {bytesInOutput}] of Object.entries(inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)) if (bytesInOutput) console.log(bytesInOutput, file)
}
