/** Svelte 5 components (runes and the Svelte 4 syntax), `<script lang="ts">` included. */
import {loadCompiler} from './load.js'
import type {EngineSpec} from './types.js'

export const svelte: EngineSpec = {
  name: 'svelte',
  library: 'Svelte 5',
  sourceFile: 'App.svelte',
  language: 'svelte+ts',
  extensions: ['svelte'],
  packages: ['vite', 'svelte', '@sveltejs/vite-plugin-svelte'],
  compile: 'vite',
  imports: ['svelte'],
  vite: {
    async plugins() {
      const {svelte: plugin} = await loadCompiler<typeof import('@sveltejs/vite-plugin-svelte')>('@sveltejs/vite-plugin-svelte')
      return [plugin({configFile: false, compilerOptions: {}})]
    },
    mountEntry: (spec) =>
      `import {mount} from 'svelte'\nimport App from ${JSON.stringify(spec)}\nmount(App, {target: document.getElementById('svc-app')})\n`,
    blocks: 'style',
    compileFile: 'App.svelte',
  },
  page: {script: 'module', cssFramework: true, fullscreenCanvas: false},
  template: 'App.svelte',
  compat: ['Svelte 4 syntax (`export let`, `$:`, `on:click`) runs in Svelte 5 compatibility mode.'],
}
