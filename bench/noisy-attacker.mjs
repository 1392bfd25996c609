// A hostile account of bench/noisy-neighbour.mjs, in its own process: three loops of hostile prompt renders,
// one loop of React compiles (every fourth one JSX nested 1,500 deep, which crashes the compiler) and
// four loops of anonymous 100 KB public writes, until its stdin closes; then prints its counts as JSON.
// node bench/noisy-attacker.mjs URL TOKEN [DB_CODE=wall] (the account's prompt `slow` and public db DB_CODE)
import {setPriority} from 'node:os'

const [url, token, dbCode = 'wall'] = process.argv.slice(2)
// The attacker's own client work (building and sending bodies as fast as it can) shares the two
// cores with the server here; in a deployment it runs on other machines. NOISY_ATTACKER_NICE (10 by
// default, the level of svc's own compile and render workers) keeps this client from outranking the
// server it attacks; 0 measures it at the server's own priority.
setPriority(Number(process.env.NOISY_ATTACKER_NICE ?? 10))
const started = Date.now()
/** NOISY_ONLY=renders|compiles|writes runs one kind of attack (to see what each costs A). */
const only = process.env.NOISY_ONLY
const on = (kind) => !only || only.split(',').includes(kind)

let stop = false
process.stdin.resume()
process.stdin.on('end', () => (stop = true))

const counts = {renders: 0, compiles: 0, writes: 0, statuses: {}}
const count = (status) => (counts.statuses[status] = (counts.statuses[status] ?? 0) + 1)

/** One call; a refused connection (the server may answer 429 before reading a body) counts as `reset`. */
async function call(authorized, method, path, body) {
  try {
    const res = await fetch(url + path, {
      method, headers: {...(authorized ? {authorization: `Bearer ${token}`} : {}), 'content-type': 'application/json'},
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    await res.arrayBuffer()
    return res.status
  } catch {
    return 'reset'
  }
}

const loops = [
  ...Array.from({length: on('renders') ? 3 : 0}, async () => {
    while (!stop) count(await call(true, 'GET', '/svc/prompt/slow.md')), counts.renders++
  }),
  on('compiles') && (async () => {
    for (let i = 0; !stop; i++) {
      const deep = i % 4 === 3
      const source = deep
        ? `export default function App() { return ${'<div>'.repeat(1500)}x${'</div>'.repeat(1500)} }`
        : `export default function App() { const n = ${i}; return <p className="p-4">count {n}</p> }`
      count(await call(true, 'POST', '/svc/apps.json', {app: {name: `app${i}`, app_engine: 'react', css_engine: 'tailwind', source_code: source}}))
      counts.compiles++
    }
  })(),
  ...Array.from({length: on('writes') ? 4 : 0}, async () => {
    const body = JSON.stringify({data: {blob: 'w'.repeat(100_000)}})
    while (!stop) {
      let status
      try {
        const res = await fetch(`${url}/svc/db/${dbCode}/create`, {method: 'POST', headers: {'content-type': 'application/json'}, body})
        await res.arrayBuffer()
        status = res.status
      } catch {
        status = 'reset'
      }
      count(status), counts.writes++
    }
  }),
]
await Promise.all(loops)
const seconds = (Date.now() - started) / 1000
process.stdout.write(`${JSON.stringify({...counts, seconds: +seconds.toFixed(1), writes_per_s: Math.round(counts.writes / seconds), nice: Number(process.env.NOISY_ATTACKER_NICE ?? 10)})}\n`)
