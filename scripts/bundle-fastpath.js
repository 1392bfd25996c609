// Bundles the `svc prompt render` fast path (bin/run.js) into one minified file, dist/fastpath-prompt-render.js,
// so a cold render loads one module instead of ~60 (Node 20 has no compile cache). Native and heavy
// packages stay external (they are only reached by code paths a render never takes). Part of `npm run build`.
import {build} from 'esbuild'

const external = ['better-sqlite3', 'vite', 'svelte', 'vue', 'react', 'react-dom', 'esbuild', 'tailwindcss', 'kaplay', 'phaser', 'croner',
  'filtrex', 'chokidar', 'cli-table3', 'diff', '@sveltejs/*', '@vitejs/*', '@tailwindcss/*', '@inquirer/*', '@oclif/*']
await build({
  entryPoints: [new URL('../dist/fastpath/prompt-render.js', import.meta.url).pathname],
  // At dist/ level, so `import.meta.url`-relative paths (the package root) resolve as from dist/*.js.
  outfile: new URL('../dist/fastpath-prompt-render.js', import.meta.url).pathname,
  bundle: true, platform: 'node', format: 'esm', target: 'node20', minify: true, external, logLevel: 'error',
})
