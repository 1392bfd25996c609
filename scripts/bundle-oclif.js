// Bundles @oclif/core into one CommonJS file, dist/oclif.cjs, and writes the ES module dist/oclif.js
// that loads it with a V8 code cache (src/fastpath/code-cache.ts) and re-exports it: bin/run.js and
// every command load it through the package's `#oclif` import (package.json "imports"; types still
// come from @oclif/core). Node 20 has no compile cache, and resolving and reading oclif's ~400 files cost
// ~50 ms of every start (docs/architecture.md, docs/benchmarks.md). Part of `npm run build`, before
// `oclif manifest`, which loads the commands. Plugins (help, not-found, autocomplete) keep their own
// copy from node_modules, as oclif supports for plugins of any core version.
import {build} from 'esbuild'
import {readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'

const require = createRequire(import.meta.url)
const oclifRoot = dirname(require.resolve('@oclif/core/package.json'))

/**
 * Changes to oclif's sources. The build fails if a patch's text is not found (an oclif upgrade
 * changed it): look again, do not drop the check.
 * - Start-up costs that do nothing for svc, ~10 ms each of `svc --help` (the engines check, turned
 *   off by `define` below, is another).
 * - A bug: a `multiple: true` flag read from its environment variable came as one string (not an
 *   array: `svc serve` crashed on SVC_ALLOW_CONNECTOR_HOSTS). Now it is split on the flag's
 *   `delimiter` (trimmed, empty entries dropped) or is a one-element array, each parsed as on the
 *   command line (test/security/serve-flags.test.ts).
 */
const patches = [
  // Whether oclif runs under WSL (its config's platform) imported wsl-utils and five more modules on
  // every start on Linux (~10 ms). The same answer: only a Linux whose kernel names Microsoft (the
  // release or /proc/version, is-wsl's two signs) can be WSL, and only then is wsl-utils asked.
  {file: 'lib/util/os.js',
    find: "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
    replace: "if ((0, node_os_1.platform)() !== 'linux' || !/microsoft/i.test((0, node_os_1.release)() + (() => { try { return require('node:fs').readFileSync('/proc/version', 'utf8') } catch { return '' } })())) return (0, node_os_1.platform)();\n"
      + "    return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();"},
  {file: 'lib/parser/parse.js',
    find: 'valueFunction: async (i) => parseFlagOrThrowError(validateOptions(i.inputFlag.flag, valueFromEnv), i.inputFlag.flag, this.context),',
    replace: 'valueFunction: async (i) => i.inputFlag.flag.multiple'
      + ' ? Promise.all((i.inputFlag.flag.delimiter ? valueFromEnv.split(i.inputFlag.flag.delimiter).map((v) => v.trim()).filter((v) => v !== "") : [valueFromEnv])'
      + '.map((v) => parseFlagOrThrowError(validateOptions(i.inputFlag.flag, v), i.inputFlag.flag, this.context)))'
      + ' : parseFlagOrThrowError(validateOptions(i.inputFlag.flag, valueFromEnv), i.inputFlag.flag, this.context),'},
  // Which dependencies are plugins: a minimatch per dependency and plugin name, where every name is
  // a plain package name (a pattern without glob characters matches only itself).
  {file: 'lib/config/plugin-loader.js',
    find: '(w) => (0, minimatch_1.minimatch)(p, w)',
    replace: '(w) => (/[*?[\\]{}()!+@]/.test(w.replace(/^@[^/]+\\//, "")) ? (0, minimatch_1.minimatch)(p, w) : p === w)'},
]

const patchPlugin = {
  name: 'patch-oclif',
  setup(b) {
    for (const patch of patches) {
      const path = join(oclifRoot, patch.file)
      b.onLoad({filter: new RegExp(`${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`)}, () => {
        const source = readFileSync(path, 'utf8')
        if (!source.includes(patch.find)) throw new Error(`scripts/bundle-oclif.js: @oclif/core/${patch.file} no longer contains ${patch.find}`)
        return {contents: source.replace(patch.find, patch.replace), loader: 'js'}
      })
    }
  },
}

// Named exports listed one by one: the ES module dist/oclif.js re-exports them by name.
const names = Object.keys(require('@oclif/core')).filter((name) => name !== 'default' && name !== '__esModule')
const dist = new URL('../dist/', import.meta.url).pathname
const result = await build({
  stdin: {
    contents: `export {${names.join(', ')}} from '@oclif/core'\nexport {Exit} from '@oclif/core/handle'\n`,
    resolveDir: new URL('..', import.meta.url).pathname,
    loader: 'js',
  },
  // CommonJS, loaded by dist/fastpath/code-cache.js with a V8 code cache (src/fastpath/code-cache.ts).
  write: false, outfile: dist + 'oclif.cjs',
  // Whitespace only: renamed identifiers made V8's lazy parsing slower here (~90 vs ~70 ms to load).
  bundle: true, platform: 'node', format: 'cjs', target: 'node20', minifyWhitespace: true, logLevel: 'error',
  // oclif warns when Node is older than its own `engines` (>= 18: never here, and npm checks svc's at
  // install). Bundled, its check would read svc's package.json and load semver on every start.
  define: {'process.env.OCLIF_DISABLE_ENGINE_WARNING': '"1"'},
  // Loaded only to run TypeScript sources in development, or on Windows (WSL): never bundled.
  external: ['typescript', 'ts-node', 'tsx', 'wsl-utils'],
  plugins: [patchPlugin],
})
// oclif loads commands (ES modules) with import(): in a script compiled from a code cache that is
// the loader's `__svcImport` (a real import() of the ES module dist/oclif.js).
let code = result.outputFiles[0].text
const dynamicImport = /(?<![\w$.])import\((?!\))/g
const imports = code.match(dynamicImport)?.length ?? 0
if (imports < 3) throw new Error(`scripts/bundle-oclif.js: expected oclif's dynamic import() calls in the bundle, found ${imports}`)
code = code.replace(dynamicImport, '__svcImport(')
for (const f of readdirSync(dist)) if (/^oclif\.cjs\..*\.v8cache$/.test(f)) rmSync(dist + f)
writeFileSync(dist + 'oclif.cjs', code)
writeFileSync(dist + 'oclif.js', [
  '// @oclif/core, bundled by scripts/bundle-oclif.js into oclif.cjs and loaded with a V8 code cache.',
  "import {loadWithCodeCache} from './fastpath/code-cache.js'",
  "const oclif = loadWithCodeCache(new URL('./oclif.cjs', import.meta.url), {importer: (specifier) => import(specifier)})",
  `export const {${[...names, 'Exit'].join(', ')}} = oclif`,
  '',
].join('\n'))
