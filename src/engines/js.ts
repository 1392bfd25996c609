/**
 * Plain JavaScript run as a classic script on a page with a `#svc-app` element, used as-is
 * (platform-api.md, Engines: "not compiled"): the source is stored and served byte for byte as
 * written. A source a browser would refuse (a syntax error, TypeScript syntax, an `import`) is
 * still saved; the server only warns (`X-Svc-Warning`, src/compile/script.ts). TypeScript and
 * imports belong to the engines that compile.
 */
import type {EngineSpec} from './types.js'

export const js: EngineSpec = {
  name: 'js',
  library: 'a classic script',
  sourceFile: 'app.js',
  language: 'js',
  extensions: ['js', 'mjs'],
  packages: [],
  compile: 'none',
  imports: [],
  page: {script: 'script', cssFramework: false, fullscreenCanvas: false},
  template: 'app.js',
  compat: [],
}
