/**
 * React 19 components, written in JSX or TSX: the source is compiled as TSX (TypeScript types
 * stripped). A default export is rendered with createRoot; a module without one mounts itself.
 */
import {loadCompiler} from './load.js'
import type {EngineSpec} from './types.js'

export const react: EngineSpec = {
  name: 'react',
  library: 'React 19',
  sourceFile: 'App.jsx',
  language: 'tsx',
  extensions: ['jsx', 'tsx'],
  byContent: {extensions: ['js', 'mjs', 'ts'], rank: 3, recognizes: (source) => /^\s*import\s.*from\s+['"]react['"]/m.test(source)},
  packages: ['vite', 'react', 'react-dom', '@vitejs/plugin-react'],
  compile: 'vite',
  imports: ['react', 'react-dom'],
  vite: {
    async plugins() {
      return [(await loadCompiler<typeof import('@vitejs/plugin-react')>('@vitejs/plugin-react')).default()]
    },
    mountEntry: (spec) => [
      `import {createElement} from 'react'`,
      `import {createRoot} from 'react-dom/client'`,
      `import * as mod from ${JSON.stringify(spec)}`,
      `if (typeof mod.default === 'function' || (mod.default && typeof mod.default === 'object')) {`,
      `  createRoot(document.getElementById('svc-app')).render(createElement(mod.default))`,
      `}`,
      ``,
    ].join('\n'),
    devOptimize: ['react', 'react-dom/client', 'react/jsx-dev-runtime'],
    blocks: 'none',
    compileFile: 'App.tsx',
  },
  page: {script: 'module', cssFramework: true, fullscreenCanvas: false},
  template: 'App.jsx',
  compat: [],
}
