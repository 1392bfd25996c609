/**
 * Plain JavaScript (or TypeScript, types stripped) run as a classic script on a page with a
 * `#svc-app` element. A classic script has no imports: an `import` is refused at create, like
 * any engine's import of a package it does not provide.
 */
import type {EngineSpec} from './types.js'

export const js: EngineSpec = {
  name: 'js',
  library: 'a classic script',
  sourceFile: 'app.js',
  language: 'ts',
  extensions: ['js', 'mjs', 'ts'],
  packages: [],
  compile: 'script',
  imports: [],
  page: {script: 'script', cssFramework: false, fullscreenCanvas: false},
  template: 'app.js',
  compat: [],
}
