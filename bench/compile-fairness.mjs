// Fair compiles (issue 40 N8): a quiet account's compile time (create of a small svelte app, a new
// source each time: no cache hit), p50 and max, alone and while 1, 2 and 3 busy accounts keep their
// compile queues full (each keeps `compile_queue_per_account` + 1 compiles of a 1,000-line svelte
// app in flight; a 429 waits its Retry-After). One `svc serve` with the default 2 compile workers.
// Run after `npm run build`: node bench/compile-fairness.mjs [QUIET_COMPILES=10] [BUSY=1,2,3]
import {mkdtempSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {percentile, startServe} from './lib.js'

/** BENCH_ROOT: another checkout's built dist/ and bin/ (a before/after comparison). */
const root = process.env.BENCH_ROOT ?? new URL('..', import.meta.url).pathname
const QUIET = Math.max(3, Number(process.argv[2] ?? 10))
const BUSY = String(process.argv[3] ?? '1,2,3').split(',').map(Number).filter((n) => n > 0)
const log = (m) => process.stderr.write(`compile-fairness: ${m}\n`)

let tag = 0
const source = (lines) => `<script>\n  let n = $state(0)\n</script>\n<!-- ${process.pid}-${++tag} -->\n` +
  Array.from({length: lines}, (_, i) => `<p class="c${i}">line ${i} {n + ${i}}</p>`).join('\n') + '\n<button onclick={() => n++}>+</button>\n'

const dir = mkdtempSync(join(tmpdir(), 'svc-compile-fair-'))
const {openStore} = await import(join(root, 'dist/store/index.js'))
const store = openStore(dir)
const tokens = {}
for (const name of ['quiet', 'busy1', 'busy2', 'busy3']) {
  const account = await store.accounts.createAccount(name)
  const user = await store.accounts.addUser({login: `admin_${name}`, role: 'admin', accountId: account.id})
  tokens[name] = await store.accounts.createToken(user.id)
}
store.close()

const {url, stop} = await startServe(root, ['--data', dir])

const create = async (who, lines) => {
  const res = await fetch(`${url}/svc/apps.json`, {
    method: 'POST', headers: {authorization: `Bearer ${tokens[who]}`, 'content-type': 'application/json'},
    body: JSON.stringify({app: {name: `a${tag}`, app_engine: 'svelte', css_engine: 'none', source_code: source(lines)}}),
  })
  await res.arrayBuffer()
  return res
}

/** The quiet account's compiles, one after the other (a short pause between): seconds each. */
async function quiet(n) {
  const xs = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    const res = await create('quiet', 20)
    if (res.status !== 201) throw new Error(`quiet compile answered ${res.status}`)
    xs.push((performance.now() - t) / 1000)
    await new Promise((r) => setTimeout(r, 200))
  }
  return {p50_s: +percentile(xs, 50).toFixed(2), max_s: +Math.max(...xs).toFixed(2)}
}

/** Keeps 9 compiles of `who` in flight (8 may wait, one more runs or is refused) until `stop()`. */
function busy(who) {
  let running = true
  const counts = {201: 0, 429: 0, other: 0}
  const loop = async () => {
    while (running) {
      const res = await create(who, 1000).catch(() => null)
      const status = res?.status ?? 0
      if (status === 201 || status === 429) counts[status]++
      else counts.other++
      if (status === 429) await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)))
    }
  }
  const loops = Array.from({length: 9}, loop)
  return {counts, stop: async () => {
    running = false
    await Promise.all(loops)
  }}
}

try {
  await quiet(2) // warm: both workers load the compilers
  const results = {quiet: await quiet(QUIET)}
  log(`quiet: ${JSON.stringify(results.quiet)}`)
  for (const n of BUSY) {
    const loads = Array.from({length: n}, (_, i) => busy(`busy${i + 1}`))
    await new Promise((r) => setTimeout(r, 3000)) // the busy queues fill
    const q = await quiet(QUIET)
    for (const l of loads) await l.stop()
    results[`busy_${n}`] = {...q, busy_compiles: loads.map((l) => l.counts)}
    log(`${n} busy: ${JSON.stringify(results[`busy_${n}`])}`)
  }
  console.log(JSON.stringify({load: loadavg().map((x) => +x.toFixed(2)), results}, null, 2))
} finally {
  await stop()
  rmSync(dir, {recursive: true, force: true})
}
