/** A whole HTML page, served as written (the context script is put first in its `<head>`). */
import type {EngineSpec} from './types.js'

export const html: EngineSpec = {
  name: 'html',
  library: 'a whole HTML page',
  sourceFile: 'index.html',
  language: 'html',
  extensions: ['html', 'htm'],
  packages: [],
  compile: 'none',
  imports: [],
  page: {script: 'html', cssFramework: false, fullscreenCanvas: false},
  template: 'index.html',
  compat: [],
}
