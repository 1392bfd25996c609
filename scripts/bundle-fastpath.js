// Bundles the `svc prompt render` fast path (bin/run.js) into dist/fastpath-prompt-render.js plus
// chunks (dist/fastpath-chunk-*.js) for what only some renders need (the remote client, YAML),
// so a cold render loads a few modules instead of ~40 (Node 20 has no compile cache). Native and
// heavy packages stay external. Part of `npm run build`.
import {build} from 'esbuild'
import {readdirSync, rmSync} from 'node:fs'

const dist = new URL('../dist/', import.meta.url).pathname
for (const f of readdirSync(dist)) if (/^fastpath-.*\.js$/.test(f)) rmSync(dist + f)

const external = ['better-sqlite3', 'pg', 'liquidjs', 'vite', 'svelte', 'vue', 'react', 'react-dom', 'esbuild', 'tailwindcss', 'kaplay', 'phaser', 'croner',
  'filtrex', 'chokidar', 'cli-table3', 'diff', '@sveltejs/*', '@vitejs/*', '@tailwindcss/*', '@inquirer/*', '@oclif/*']
await build({
  entryPoints: {'fastpath-prompt-render': dist + 'fastpath/prompt-render.js'},
  // Chunks at dist/ level too, so `import.meta.url`-relative paths (the package root) resolve as from dist/*.js.
  outdir: dist,
  chunkNames: 'fastpath-chunk-[hash]',
  splitting: true,
  bundle: true, platform: 'node', format: 'esm', target: 'node20', minify: true, external, logLevel: 'error',
})
