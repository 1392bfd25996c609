// Builds the web console (console/, a Svelte 5 app) into dist/console with Vite, at build time:
// the server only serves the result. Part of `npm run build`.
import {fileURLToPath} from 'node:url'
import {svelte} from '@sveltejs/vite-plugin-svelte'
import {build} from 'vite'

const root = fileURLToPath(new URL('../console', import.meta.url))
await build({
  root,
  base: '/console/',
  configFile: false,
  logLevel: 'warn',
  plugins: [svelte()],
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // The server serves `assets/<letters, digits, _ and ->.js|css` only (src/http/routes/console.ts):
    // a chunk named after `editable.svelte.js` would carry a dot.
    rollupOptions: {output: {chunkFileNames: (chunk) => `assets/${chunk.name.replace(/[^A-Za-z0-9_-]/g, '_')}-[hash].js`}},
  },
})
