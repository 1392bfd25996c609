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
  build: {outDir: fileURLToPath(new URL('../dist/console', import.meta.url)), emptyOutDir: true, assetsDir: 'assets'},
})
