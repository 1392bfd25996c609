// `svc app dev` save→update latency: edits the source RUNS times in a real Chromium and measures the
// time from the write to the new text in the page, and the dev server's own "updated in N ms"
// (file event → the browser's vite:afterUpdate). Prints one JSON object on stdout.
// Run after `npm run build` (needs /usr/bin/chromium): node bench/apps-dev.mjs [svelte|vue|react|all] [RUNS=10]
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {chromium} from 'playwright-core'
import {embeddedBackend} from '../dist/client/embedded.js'
import {startDevServer} from '../dist/dev/server.js'
import {openStore} from '../dist/store/index.js'

const CHROMIUM = '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  console.error(`bench/apps-dev.mjs drives Debian's Chromium, and ${CHROMIUM} is missing: apt-get install -y chromium`)
  process.exit(1)
}

const FILES = {svelte: 'App.svelte', vue: 'App.vue', react: 'App.jsx'}
const which = process.argv[2] ?? 'all'
const engines = which === 'all' ? Object.keys(FILES) : [which]
if (!engines.every((e) => FILES[e])) throw new Error(`engine must be one of ${Object.keys(FILES).join(', ')}, all`)
const RUNS = Math.max(1, Number(process.argv[3] ?? 10))
const root = new URL('..', import.meta.url).pathname
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const data = mkdtempSync(join(tmpdir(), 'svc-bench-dev-'))
const store = openStore(data)
const account = await store.accounts.createAccount('bench')
await store.accounts.addUser({accountId: account.id, login: 'bench', role: 'admin'})
store.close()
const backend = await embeddedBackend({dataDir: data})
const profile = mkdtempSync(join(tmpdir(), 'svc-bench-chromium-'))
const context = await chromium.launchPersistentContext(profile, {executablePath: CHROMIUM, headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync']})
const results = []
try {
  for (const engine of engines) {
    const dir = join(data, engine)
    mkdirSync(dir)
    const file = join(dir, FILES[engine])
    const template = readFileSync(join(root, 'templates', engine, FILES[engine]), 'utf8')
    writeFileSync(file, template)
    writeFileSync(join(dir, 'svc-app.json'), JSON.stringify({name: 'bench', app_engine: engine, css_engine: 'none'}))
    const serverTimes = []
    const dev = await startDevServer({dir, backend, port: 0, log: (line) => {
      const m = /^updated in (\d+) ms$/.exec(line)
      if (m) serverTimes.push(Number(m[1]))
    }})
    const page = await context.newPage()
    try {
      await page.goto(dev.url)
      await page.getByText('Clicked 0 times').waitFor({timeout: 30_000})
      await page.evaluate(() => (window.__benchMarker = 1))
      const times = []
      for (let i = 1; i <= RUNS; i++) {
        const label = `Edit${i}`
        const t = performance.now()
        writeFileSync(file, template.replace('Clicked', label))
        await page.getByText(`${label} 0 times`).waitFor({timeout: 30_000})
        times.push(performance.now() - t)
        await new Promise((r) => setTimeout(r, 150))
      }
      const hmr = await page.evaluate(() => window.__benchMarker === 1)
      const p50 = Math.round(median(times))
      results.push({engine, runs: RUNS, save_to_dom_p50_ms: p50, server_reported_p50_ms: serverTimes.length ? median(serverTimes) : null,
        without_full_reload: hmr, target_met: p50 <= 150})
    } finally {
      await page.close()
      await dev.close()
    }
  }
} finally {
  await context.close()
  await backend.close()
  rmSync(profile, {recursive: true, force: true})
  rmSync(data, {recursive: true, force: true})
}
console.log(JSON.stringify({bench: 'apps-dev', engines: results}))
