/** The source file name of each engine and the small entry module that mounts it into `#svc-app`. */
import type {AppEngine} from './validate.js'

/** File name the source is kept under (in a build folder, and in a `svc app pull`/`dev` folder). */
export const SOURCE_FILE: Record<AppEngine, string> = {
  svelte: 'App.svelte',
  vue: 'App.vue',
  react: 'App.jsx',
  js: 'app.js',
  html: 'index.html',
  kaboom: 'game.js',
  phaser: 'game.js',
}

/**
 * The entry that mounts the component. React: a default export is rendered with createRoot;
 * a module without one is expected to mount itself into `#svc-app`.
 */
export function mountEntry(engine: 'svelte' | 'vue' | 'react', sourceImport: string): string {
  const spec = JSON.stringify(sourceImport)
  switch (engine) {
    case 'svelte':
      return `import {mount} from 'svelte'\nimport App from ${spec}\nmount(App, {target: document.getElementById('svc-app')})\n`
    case 'vue':
      return `import {createApp} from 'vue'\nimport App from ${spec}\ncreateApp(App).mount('#svc-app')\n`
    case 'react':
      return [
        `import {createElement} from 'react'`,
        `import {createRoot} from 'react-dom/client'`,
        `import * as mod from ${spec}`,
        `if (typeof mod.default === 'function' || (mod.default && typeof mod.default === 'object')) {`,
        `  createRoot(document.getElementById('svc-app')).render(createElement(mod.default))`,
        `}`,
        ``,
      ].join('\n')
  }
}
