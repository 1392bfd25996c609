// Bundles @oclif/core into one file, dist/oclif.cjs, which bin/run.js and every command load through
// the package's `#oclif` import (package.json "imports"; types still come from @oclif/core). Node 20
// has no compile cache, and oclif's ~400 files cost ~60 ms of resolving and reading on each start:
// `svc --help` cold went from ~320 to ~255 ms (docs/benchmarks.md). Part of `npm run build`, before
// `oclif manifest`, which loads the commands. Plugins (help, not-found, autocomplete) keep their own
// copy from node_modules, as oclif supports for plugins of any core version.
import {build} from 'esbuild'
import {createRequire} from 'node:module'

const require = createRequire(import.meta.url)
// Named exports listed one by one, so Node's CJS export detection sees them from ESM importers.
const names = Object.keys(require('@oclif/core')).filter((name) => name !== 'default' && name !== '__esModule')
await build({
  stdin: {
    contents: `export {${names.join(', ')}} from '@oclif/core'\nexport {Exit} from '@oclif/core/handle'\n`,
    resolveDir: new URL('..', import.meta.url).pathname,
    loader: 'js',
  },
  outfile: new URL('../dist/oclif.js', import.meta.url).pathname,
  bundle: true, platform: 'node', format: 'esm', target: 'node20', minifyWhitespace: true, logLevel: 'error',
  // oclif is CommonJS: it calls require (require.resolve finds plugins) and reads __dirname.
  banner: {js: "import {createRequire as __svcRequire} from 'node:module'; import {fileURLToPath as __svcPath} from 'node:url'; const require = __svcRequire(import.meta.url); const __filename = __svcPath(import.meta.url); const __dirname = __svcPath(new URL('.', import.meta.url));"},
  // Loaded only to run TypeScript sources in development, or on Windows (WSL): never bundled.
  external: ['typescript', 'ts-node', 'tsx', 'wsl-utils'],
})
