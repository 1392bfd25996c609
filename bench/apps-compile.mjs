// Compile times per engine: the first compile in a fresh process (worker start and module import included), cold
// compiles with the modules loaded (a new source each time: never in the cache) through the server's
// path (a warm worker process of src/services/compiles/compile-pool.ts), the same compile run in this process
// (`compileNow`, what the server did before compiles moved out of it: issue 16 asks the pool to stay
// within 1.2× of it), interleaved so both see the same machine, and cache hits (a SHA-256 and one
// SQLite lookup). Prints one JSON object on stdout (a table on stderr).
// Run after `npm run build`: node bench/apps-compile.mjs [COLD_RUNS=5]   (cached runs: 10 × COLD_RUNS)
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {compileNow, prepare} from '../dist/compile/build.js'
import {compileApp} from '../dist/compile/index.js'
import {createCompilePool} from '../dist/services/compiles/compile-pool.js'
import {openStore} from '../dist/store/index.js'

const root = new URL('..', import.meta.url).pathname
// The server's compile pool (one per server: src/services/compiles/compile-pool.ts).
const pool = createCompilePool()
const compiling = {compiler: pool, inFlight: new Map()}
const ENGINES = [['svelte', 'App.svelte', 'tailwind'], ['vue', 'App.vue', 'tailwind'], ['react', 'App.jsx', 'tailwind'],
  ['kaboom', 'game.js', 'none'], ['phaser', 'game.js', 'none']]
const COLD_RUNS = Math.max(1, Number(process.argv[2] ?? 9))
const CACHED_RUNS = COLD_RUNS * 10
const TARGET_COLD_MS = {phaser: 2000}
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
    await compileApp({engine, cssEngine: css, source: base + comment('first')}, store.apps, compiling)
    const first = performance.now() - t
    await prepare(engine, css)
    await compileNow({engine, cssEngine: css, source: base + comment('first in process')}, 'warm')
    const cold = []
    const inProcess = []
    for (let i = 0; i < COLD_RUNS; i++) {
      t = performance.now()
      const r = await compileApp({engine, cssEngine: css, source: base + comment(i)}, store.apps, compiling)
      cold.push(performance.now() - t)
      if (r.status !== 'compiled') throw new Error('expected a compile')
      t = performance.now()
      await compileNow({engine, cssEngine: css, source: base + comment(`${i} in process`)}, `in-process-${i}`)
      inProcess.push(performance.now() - t)
    }
    const cached = []
    for (let i = 0; i < CACHED_RUNS; i++) {
      t = performance.now()
      const r = await compileApp({engine, cssEngine: css, source: base + comment(0)}, store.apps, compiling)
      cached.push(performance.now() - t)
      if (r.status !== 'cached') throw new Error('expected a cache hit')
    }
    const coldP50 = median(cold)
    const cachedP50 = median(cached)
    const inProcessP50 = median(inProcess)
    rows.push({engine, css, first_ms: Math.round(first), cold_p50_ms: Math.round(coldP50), in_process_p50_ms: Math.round(inProcessP50),
      worker_ratio: +(coldP50 / inProcessP50).toFixed(2), cached_p50_ms: +cachedP50.toFixed(2),
      cold_target_met: coldP50 <= (TARGET_COLD_MS[engine] ?? 1000), cached_target_met: cachedP50 <= 5})
  }
} finally {
  store.close()
  pool.stop()
  rmSync(dir, {recursive: true, force: true})
}
console.error(rows.map((r) => Object.values(r).join('\t')).join('\n'))
console.log(JSON.stringify({bench: 'apps-compile', cold_runs: COLD_RUNS, cached_runs: CACHED_RUNS, engines: rows}))
