// Compile times per engine: first compile in a fresh process (module import included), cold
// compiles with the modules loaded (a new source each time), and cache hits (SQLite lookup).
// Run after `npm run build`: node bench/apps-compile.mjs
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {compileApp} from '../dist/compile/index.js'
import {openStore} from '../dist/store/index.js'

const root = new URL('..', import.meta.url).pathname
const ENGINES = [['svelte', 'App.svelte', 'tailwind'], ['vue', 'App.vue', 'tailwind'], ['react', 'App.jsx', 'tailwind'],
  ['kaboom', 'game.js', 'none'], ['phaser', 'game.js', 'none']]
const COLD_RUNS = Number(process.env.COLD_RUNS ?? 5)
const CACHED_RUNS = Number(process.env.CACHED_RUNS ?? 50)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
const store = openStore(dir)
const rows = []
try {
  for (const [engine, file, css] of ENGINES) {
    const base = readFileSync(join(root, 'templates', engine, file), 'utf8')
    const salt = `${process.pid}-${Date.now()}`
    const comment = (i) => (engine === 'svelte' || engine === 'vue' ? `\n<!-- ${i} ${salt} -->\n` : `\n// ${i} ${salt}\n`)
    let t = performance.now()
    await compileApp({engine, cssEngine: css, source: base + comment('first')}, store.apps)
    const first = performance.now() - t
    const cold = []
    for (let i = 0; i < COLD_RUNS; i++) {
      t = performance.now()
      await compileApp({engine, cssEngine: css, source: base + comment(i)}, store.apps)
      cold.push(performance.now() - t)
    }
    const cached = []
    for (let i = 0; i < CACHED_RUNS; i++) {
      t = performance.now()
      const r = await compileApp({engine, cssEngine: css, source: base + comment(0)}, store.apps)
      cached.push(performance.now() - t)
      if (r.status !== 'cached') throw new Error('expected a cache hit')
    }
    rows.push({engine, css, first_in_process_ms: Math.round(first), cold_p50_ms: Math.round(median(cold)), cached_p50_ms: +median(cached).toFixed(2)})
  }
} finally {
  store.close()
  rmSync(dir, {recursive: true, force: true})
}
console.table(rows)
console.log(JSON.stringify(rows))
