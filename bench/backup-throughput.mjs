// Backup and restore throughput against each store's own tool, in the same run (issue 36):
// `node bench/backup-throughput.mjs RECORDS [PG_URL]` (the checkout built: its dist/ is used).
// SQLite: `svc admin backup` / `svc admin restore` against `sqlite3 .backup` and `VACUUM INTO`.
// PostgreSQL (with PG_URL, a server where databases may be created): against `pg_dump -Fc` /
// `pg_restore`; on SQLite also one account's `svc admin export` / `svc admin import`. Each on a db of RECORDS records with three indexed fields; the server's memory is
// not involved (the commands run as their own processes); their peak RSS is reported.
// Then, on each store, a served backup: `svc serve --backup-dir` over the same data, the p99 of
// other requests (a page of records, the db, the caller) while its backup
// runs against the same server's quiet p99 after it, and the server's peak memory.
// `--served` runs only that part. Times are wall; CPU is the command's own process (user + system, GNU
// time), not the database server's. `svc admin backup` runs with --jobs 1 (its default) and --jobs 2.
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {percentile, startServe} from './lib.js'

const servedOnly = process.argv.includes('--served')
const [records, pgUrl] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const n = Number(records)
if (!n) {
  console.error('usage: node bench/backup-throughput.mjs RECORDS [PG_URL] [--served]')
  process.exit(2)
}
const root = resolve(new URL('..', import.meta.url).pathname)
const dist = join(root, 'dist')
const bin = join(root, 'bin', 'run.js')
const work = mkdtempSync(join(tmpdir(), 'svc-bench-backup-'))

/** Runs a command, returns seconds, its CPU seconds (user + system, its own process: not the database server's) and the peak RSS (MB) GNU time reports. */
function timed(cmd, args, env = {}) {
  const started = performance.now()
  const run = spawnSync('/usr/bin/time', ['-f', '%M %U %S', cmd, ...args], {encoding: 'utf8', env: {...process.env, ...env}})
  if (run.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${run.stderr}`)
  const [rss, user, sys] = run.stderr.trim().split('\n').at(-1).split(' ').map(Number)
  return {s: (performance.now() - started) / 1000, rssMb: Math.round(rss / 1024), cpu: user + sys}
}

let token

async function fill(store) {
  const {indexValues} = await import(`${dist}/core/dbs/records.js`)
  const {planSchema, tablePlan} = await import(`${dist}/core/dbs/schema.js`)
  const schema = {fields: {name: 'string', email: 'string', age: 'integer'}, indexed_fields: ['name', 'email', 'age']}
  const table = tablePlan(planSchema(schema), null)
  const account = await store.accounts.createAccount('bench')
  const user = await store.accounts.addUser({login: 'bench', role: 'admin', accountId: account.id})
  token = await store.accounts.createToken(user.id)
  const db = await store.dbs.create(account.id, {name: 'big', code: 'big', app_id: null, schema, public_methods: {}, fields: {}})
  for (let i = 0; i < n; i += 5000) {
    const batch = Array.from({length: Math.min(5000, n - i)}, (_, k) => {
      const data = {name: `Person ${i + k}`, email: `user${i + k}@example.com`, age: (i + k) % 90, bio: 'lorem ipsum dolor sit amet'}
      return {tableName: null, data, index: indexValues(table, data)}
    })
    await store.dbs.createRecords(account.id, db.id, batch)
  }
}

/** The server's resident memory now and its peak (MB), from /proc. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return {rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024)}
}

/**
 * `svc serve` with a backup dir: its backup starts at once (the dir holds none). Four clients read
 * the db in a loop; latencies are kept while the archive's .partial file exists, then for as long
 * again once it is done (the quiet figure, the same server warmed up).
 */
async function served(label, args) {
  const dir = join(work, `served-${label}`)
  mkdirSync(dir)
  const {url, server, stop} = await startServe(root, [...args, '--backup-dir', dir, '--backup-every', '1d'])
  const paths = ['/svc/dbs/big/records.json?limit=20', '/svc/me.json', '/svc/dbs/big.json']
  let phase = 'before'
  const lat = {during: [], quiet: []}
  let peakRss = 0
  const clients = Array.from({length: 4}, async (_, c) => {
    for (let i = c; phase !== 'done'; i++) {
      const started = performance.now()
      const res = await fetch(url + paths[i % paths.length], {headers: {authorization: `Bearer ${token}`}})
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`${paths[i % paths.length]}: ${res.status}`)
      const ms = performance.now() - started
      if (phase === 'during' || phase === 'quiet') lat[phase].push(ms)
    }
  })
  const files = () => readdirSync(dir)
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, memoryOf(server.pid).rss)), 50)
  while (!files().some((f) => f.endsWith('.partial') || f.endsWith('.svcbak'))) await new Promise((r) => setTimeout(r, 5))
  phase = 'during'
  const began = performance.now()
  while (!files().some((f) => f.endsWith('.svcbak'))) await new Promise((r) => setTimeout(r, 5))
  const took = (performance.now() - began) / 1000
  phase = 'quiet'
  await new Promise((r) => setTimeout(r, Math.max(3000, took * 1000)))
  const hwm = memoryOf(server.pid).peak
  phase = 'done'
  await Promise.all(clients)
  clearInterval(sampler)
  await stop()
  const q = (a, p) => percentile(a, p).toFixed(1)
  return `| ${label} | ${took.toFixed(2)} s | ${lat.during.length} | ${q(lat.during, 50)} / ${q(lat.during, 99)} ms | ${lat.quiet.length} | ${q(lat.quiet, 50)} / ${q(lat.quiet, 99)} ms | ` +
    `${(percentile(lat.during, 99) / percentile(lat.quiet, 99)).toFixed(2)}× | ${peakRss} MB (VmHWM ${hwm} MB) |`
}
const servedRows = []

const rows = []
const mb = (file) => (statSync(file).size / 1e6).toFixed(1)
const rate = (t) => `${Math.round(n / t.s).toLocaleString('en')} rec/s; CPU ${t.cpu.toFixed(2)} s`

{
  const data = join(work, 'sqlite')
  const {openStore} = await import(`${dist}/store/index.js`)
  const store = openStore(data)
  await fill(store)
  await store.close()
  servedRows.push(await served('SQLite', ['--data', data]))
}

if (!servedOnly) {
  const data = join(work, 'sqlite')
  const archive = join(work, 'sqlite.svcbak')
  // One job (the default: one block compressed beside the reading) and two.
  const b = timed(process.execPath, [bin, 'admin', 'backup', '--data', data, '--out', archive, '--jobs', '1'])
  const b2 = timed(process.execPath, [bin, 'admin', 'backup', '--data', data, '--out', join(work, 'sqlite-j2.svcbak'), '--jobs', '2'])
  const r = timed(process.execPath, [bin, 'admin', 'restore', archive, '--data', join(work, 'sqlite-restored')])
  const native = timed('sqlite3', [join(data, 'svc.sqlite'), `.backup ${join(work, 'native.sqlite')}`])
  const vacuum = timed('sqlite3', [join(data, 'svc.sqlite'), `VACUUM INTO '${join(work, 'vacuum.sqlite')}'`])
  rows.push(`| SQLite | svc admin backup --jobs 1 | ${b.s.toFixed(2)} s (${rate(b)}) | ${mb(archive)} MB | ${b.rssMb} MB |`)
  rows.push(`| SQLite | svc admin backup --jobs 2 | ${b2.s.toFixed(2)} s (${rate(b2)}) | ${mb(join(work, 'sqlite-j2.svcbak'))} MB | ${b2.rssMb} MB |`)
  rows.push(`| SQLite | sqlite3 .backup | ${native.s.toFixed(2)} s (${rate(native)}) | ${mb(join(work, 'native.sqlite'))} MB | ${native.rssMb} MB |`)
  rows.push(`| SQLite | sqlite3 VACUUM INTO | ${vacuum.s.toFixed(2)} s (${rate(vacuum)}) | ${mb(join(work, 'vacuum.sqlite'))} MB | ${vacuum.rssMb} MB |`)
  rows.push(`| SQLite | svc admin restore | ${r.s.toFixed(2)} s (${rate(r)}) | | ${r.rssMb} MB |`)
  // One account moved to another server: export, then import into a new data dir (ids renumbered, triggers kept: a live target).
  const exported = join(work, 'account.svcbak')
  const e = timed(process.execPath, [bin, 'admin', 'export', '--account', '1', '--data', data, '--out', exported])
  const i = timed(process.execPath, [bin, 'admin', 'import', exported, '--data', join(work, 'sqlite-imported'), '--yes'])
  rows.push(`| SQLite | svc admin export (one account) | ${e.s.toFixed(2)} s (${rate(e)}) | ${mb(exported)} MB | ${e.rssMb} MB |`)
  rows.push(`| SQLite | svc admin import (into a new dir) | ${i.s.toFixed(2)} s (${rate(i)}) | | ${i.rssMb} MB |`)
}

if (pgUrl) {
  const name = `svc_bench_backup_${process.pid}`
  const admin = (sql) => execFileSync('psql', [pgUrl, '-Atc', sql])
  const dbUrl = (db) => Object.assign(new URL(pgUrl), {pathname: `/${db}`}).toString()
  admin(`CREATE DATABASE ${name}`)
  admin(`CREATE DATABASE ${name}_r`)
  admin(`CREATE DATABASE ${name}_n`)
  try {
    const {openStoreAt} = await import(`${dist}/store/index.js`)
    const store = await openStoreAt({dataDir: join(work, 'pgdir'), databaseUrl: dbUrl(name)})
    await fill(store)
    await store.close()
    servedRows.push(await served('PostgreSQL', ['--data', join(work, 'pgdir'), '--database-url', dbUrl(name)]))
    if (servedOnly) throw new Error('served only')
    const archive = join(work, 'pg.svcbak')
    const dump = join(work, 'pg.dump')
    // One job (the default: one connection, one block compressed beside the reading) and two (two connections on one snapshot).
    const b = timed(process.execPath, [bin, 'admin', 'backup', '--database-url', dbUrl(name), '--out', archive, '--jobs', '1'])
    const b2 = timed(process.execPath, [bin, 'admin', 'backup', '--database-url', dbUrl(name), '--out', join(work, 'pg-j2.svcbak'), '--jobs', '2'])
    const r = timed(process.execPath, [bin, 'admin', 'restore', archive, '--database-url', dbUrl(`${name}_r`)])
    const d = timed('pg_dump', ['-Fc', '-f', dump, dbUrl(name)])
    const pr = timed('pg_restore', ['-d', dbUrl(`${name}_n`), dump])
    rows.push(`| PostgreSQL | svc admin backup --jobs 1 | ${b.s.toFixed(2)} s (${rate(b)}) | ${mb(archive)} MB | ${b.rssMb} MB |`)
    rows.push(`| PostgreSQL | svc admin backup --jobs 2 | ${b2.s.toFixed(2)} s (${rate(b2)}) | ${mb(join(work, 'pg-j2.svcbak'))} MB | ${b2.rssMb} MB |`)
    rows.push(`| PostgreSQL | pg_dump -Fc | ${d.s.toFixed(2)} s (${rate(d)}) | ${mb(dump)} MB | ${d.rssMb} MB |`)
    rows.push(`| PostgreSQL | svc admin restore | ${r.s.toFixed(2)} s (${rate(r)}) | | ${r.rssMb} MB |`)
    rows.push(`| PostgreSQL | pg_restore | ${pr.s.toFixed(2)} s (${rate(pr)}) | | ${pr.rssMb} MB |`)
  } catch (error) {
    if (error.message !== 'served only') throw error
  } finally {
    for (const db of [name, `${name}_r`, `${name}_n`]) admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
  }
}

console.log(`| ${n.toLocaleString('en')} records, served | backup | requests during | p50 / p99 during | requests quiet | p50 / p99 quiet | p99 ratio | server's memory peak |`)
console.log('|---|---|---|---|---|---|---|---|')
for (const row of servedRows) console.log(row)
console.log()
console.log(`| ${n.toLocaleString('en')} records | tool | time | file | peak memory |`)
console.log('|---|---|---|---|---|')
for (const row of rows) console.log(row)
rmSync(work, {recursive: true, force: true})
