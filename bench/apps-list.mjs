// The app list with big builds (issue 24 M7): three apps whose stored builds are 12 MB each (put in
// through the store, as a server before the build cap could hold them), then `GET /svc/apps.json` by
// a guest of the account, one after another, on a real `svc serve`: p50/p99 and the server's RSS.
// Before the fix the list read every build (1.25 s p50, 281 → 535 MB); it now selects only what it shows.
// Run after `npm run build`: node bench/apps-list.mjs [REQUESTS=40]
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {openStore} from '../dist/store/index.js'
import {percentile} from './lib.js'

const REQUESTS = Math.max(10, Number(process.argv[2] ?? 40))
const BUILD_BYTES = 12 * 1024 * 1024
const root = new URL('..', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'svc-apps-list-'))

const store = openStore(dir)
const account = await store.accounts.createAccount('a')
const admin = await store.accounts.addUser({login: 'admin', role: 'admin', accountId: account.id})
const guest = await store.accounts.addUser({login: 'guest', role: 'guest', accountId: account.id})
const token = await store.accounts.createToken(guest.id)
for (let i = 0; i < 3; i++) {
  const js = `console.log(${JSON.stringify(String(i).repeat(BUILD_BYTES - 20))})`
  await store.apps.create(account.id, admin.id, {
    name: `Big ${i}`, url_code: `big-${i}`, description: '', app_engine: 'js', css_engine: 'none', source_code: 'console.log(1)',
    public: false, active: true, db_code: null, show_in_module: null, prompt: null, actions: [], fields: {}, config: {},
  }, {hash: `big${i}`, app_code: js, css_code: '', app_build_time: 0, css_build_time: 0})
}
await store.close()

const server = spawn(process.execPath, [join(root, 'bin/run.js'), 'serve', '--port', '0', '--data', dir, '--quiet'], {stdio: ['ignore', 'pipe', 'inherit']})
const url = await new Promise((resolve, reject) => {
  let out = ''
  server.stdout.on('data', (d) => {
    out += d
    const m = /Listening on (\S+)/.exec(out)
    if (m) resolve(m[1])
  })
  server.once('exit', (code) => reject(new Error(`svc serve exited ${code}`)))
})
const rssMb = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024)

const list = async () => {
  const res = await fetch(`${url}/svc/apps.json`, {headers: {authorization: `Bearer ${token}`}})
  const body = await res.json()
  if (res.status !== 200 || body.length !== 3) throw new Error(`GET /svc/apps.json: ${res.status}`)
}
const rssBefore = rssMb()
await list()
const times = []
for (let i = 0; i < REQUESTS; i++) {
  const t = performance.now()
  await list()
  times.push(performance.now() - t)
}
const rssAfter = rssMb()
server.kill('SIGTERM')
await new Promise((r) => server.once('exit', r))
rmSync(dir, {recursive: true, force: true})
console.log(JSON.stringify({
  bench: 'apps-list', requests: REQUESTS, apps: 3, build_mb_each: BUILD_BYTES / 2 ** 20,
  list_p50_ms: +percentile(times, 50).toFixed(2), list_p99_ms: +percentile(times, 99).toFixed(2), server_rss_mb: {before: rssBefore, after: rssAfter},
}))
