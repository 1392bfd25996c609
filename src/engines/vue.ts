/** Vue 3 single-file components (`<script setup>`, the options API), `lang="ts"` included. */
import {loadCompiler} from './load.js'
import type {EngineSpec} from './types.js'

export const vue: EngineSpec = {
  name: 'vue',
  library: 'Vue 3',
  sourceFile: 'App.vue',
  language: 'vue+ts',
  extensions: ['vue'],
  packages: ['vite', 'vue', '@vitejs/plugin-vue'],
  compile: 'vite',
  imports: ['vue', '@vue/*'],
  vite: {
    async plugins() {
      return [(await loadCompiler<typeof import('@vitejs/plugin-vue')>('@vitejs/plugin-vue')).default()]
    },
    mountEntry: (spec) => `import {createApp} from 'vue'\nimport App from ${JSON.stringify(spec)}\ncreateApp(App).mount('#svc-app')\n`,
    blocks: 'sfc-src',
    compileFile: 'App.vue',
  },
  page: {script: 'module', cssFramework: true, fullscreenCanvas: false},
  template: 'App.vue',
  compat: [],
}
