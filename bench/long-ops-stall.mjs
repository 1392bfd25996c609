// How long each operation that grows with the data holds the server's thread (SQLite runs statements
// on it): the longest gap in the event loop while it runs, and its own time, store level.
// `node bench/long-ops-stall.mjs RECORDS CHECKOUT...` (each CHECKOUT built: its dist/ is used), each on
// a fresh SQLite data dir holding RECORDS records of a db with three indexed fields; a checkout whose
// store has reader threads (Store.readers) starts them, as `svc serve` does.
// WAL checkpoints run on their thread (Store.maintenance), as in `svc serve`.
// The operations, in this order on the same db: a deep page of the records list, a deep page of a
// text search, a scan (a pattern filter on an unindexed field), a search over an unindexed field, an
// export (200 pages of 100 by after_id), the per-field usage counts, an import (20 batches of 1,000), a schema change that
// reindexes, the db's delete and purge. OPS=reindex,delete (names as in the table, comma separated)
// runs only those (the records are seeded all the same). Each row also gives the thread's own CPU time
// during the operation, in all, less what the timer itself costs.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stall} from './lib.js'

const [records, ...checkouts] = process.argv.slice(2)
const OPS = ['deep list', 'deep search', 'scan', 'unindexed search', 'export', 'usage', 'import', 'reindex', 'delete']
const only = process.env.OPS ? process.env.OPS.split(',') : OPS

if (records === '--one') {
  console.log(JSON.stringify(await measure(Number(checkouts[0]), checkouts[1])))
  process.exit(0)
}
if (!Number(records) || !checkouts.length) {
  console.error('usage: node bench/long-ops-stall.mjs RECORDS CHECKOUT...')
  process.exit(2)
}
const results = checkouts.map((checkout) => {
  const run = spawnSync(process.execPath, [process.argv[1], '--one', records, resolve(checkout, 'dist')], {encoding: 'utf8', maxBuffer: 1 << 24})
  if (run.status !== 0) throw new Error(run.stderr)
  return JSON.parse(run.stdout.trim().split('\n').at(-1))
})
console.log(`| ${records} records (SQLite) | ${checkouts.map((c) => `${c}: longest gap (longest CPU stretch) | took (thread CPU in all)`).join(' | ')} |`)
console.log(`|---|${checkouts.map(() => '---|---').join('|')}|`)
for (const op of OPS.filter((o) => only.includes(o))) {
  console.log(`| ${op} | ${results.map((r) => `${r[op].longestGapMs} ms (${r[op].longestCpuMs} ms) | ${r[op].tookMs} ms (${r[op].cpuMs ?? '—'} ms)`).join(' | ')} |`)
}

async function measure(n, dist) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-long-ops-'))
  const {openStore} = await import(`${dist}/store/index.js`)
  const {indexValues} = await import(`${dist}/core/dbs/records.js`)
  const {planSchema, tablePlan} = await import(`${dist}/core/dbs/schema.js`)
  const {buildQuery} = await import(`${dist}/core/dbs/query.js`)
  const s = openStore(dataDir)
  const readers = s.readers?.()
  let maintenance
  try {
    const schema = {fields: {name: 'string', email: 'string', age: 'integer', bio: 'string'}, indexed_fields: ['name', 'email', 'age']}
    const table = tablePlan(planSchema(schema), null)
    const account = await s.accounts.createAccount('bench')
    const db = await s.dbs.create(account.id, {name: 'big', code: 'big', app_id: null, schema, public_methods: {}, fields: {}})
    const record = (i) => {
      const data = {name: `Person ${i}`, email: `user${i}@example.com`, age: i % 90, bio: `lorem ipsum dolor ${i % 977}`}
      return {tableName: null, data, index: indexValues(table, data)}
    }
    for (let i = 0; i < n; i += 5000) await s.dbs.createRecords(account.id, db.id, Array.from({length: Math.min(5000, n - i)}, (_, k) => record(i + k)))
    // As `svc serve` does: WAL checkpoints off the thread, and the reader threads when the store has them.
    maintenance = s.maintenance()
    readers?.start({threads: 2})
    await new Promise((resolve) => setTimeout(resolve, 1000)) // the threads open their connections
    const spec = (input) => ({...buildQuery(input, table, true), tableName: null})
    const out = {}
    // What the 1 ms timer itself costs the thread (it reads /proc at every tick): its CPU per ms while
    // nothing else runs, taken off each operation's CPU in all (cpuMs), so that cpuMs is the operation's own.
    const idle = await stall(() => new Promise((resolve) => setTimeout(resolve, 2000)))
    const timerCpuPerMs = idle.cpuMs === null ? 0 : idle.cpuMs / idle.tookMs
    const time = async (op, run) => {
      if (!only.includes(op)) return
      const r = await stall(run)
      out[op] = {...r, cpuMs: r.cpuMs === null ? null : Math.max(0, Math.round(r.cpuMs - timerCpuPerMs * r.tookMs))}
    }
    await time('deep list', () => s.dbs.query(account.id, db.id, spec({offset: String(n - 50), limit: '50'})))
    await time('deep search', () => s.dbs.query(account.id, db.id, spec({q: 'example.com', offset: String(Math.floor(n / 2)), limit: '20'})))
    await time('scan', () => s.dbs.query(account.id, db.id, spec({filters: {bio: '*zzz*'}})))
    await time('unindexed search', () => s.dbs.query(account.id, db.id, spec({q: 'dolor 976', search_in: 'bio', limit: '20', offset: '500'})))
    await time('export', async () => {
      for (let after = 0, pages = 0; pages < 200; pages++) {
        const page = await s.dbs.query(account.id, db.id, spec({after_id: String(after), limit: '100'}))
        after = page.at(-1).id
        await turn() // each page is its own request
      }
    })
    await time('usage', () => s.dbs.usage(account.id, db.id, new Map([[null, ['name', 'email', 'age', 'bio']]])))
    await time('import', async () => {
      for (let b = 0; b < 20; b++) {
        await s.dbs.createRecords(account.id, db.id, Array.from({length: 1000}, (_, k) => record(n + b * 1000 + k)))
        await turn() // each batch is its own request
      }
    })
    const next = {...schema, indexed_fields: ['name', 'email', 'age', 'bio']}
    const nextTable = tablePlan(planSchema(next), null)
    // A function: main's update takes the indexer; after, any true value (the store reads the schema).
    await time('reindex', () => s.dbs.update(account.id, db.id, {name: 'big', code: 'big', app_id: null, schema: next, public_methods: {}, fields: {}},
      (_t, data) => indexValues(nextTable, data)))
    // A delete marks the db; the journal's retention purges its records later (purgeDeleted, where the store has it): both timed.
    await time('delete', async () => {
      await s.dbs.delete(account.id, db.id)
      await s.dbs.purgeDeleted?.()
    })
    return out
  } finally {
    await readers?.stop()
    await maintenance?.stop()
    await s.close()
    rmSync(dataDir, {recursive: true, force: true})
  }
}

function turn() {
  return new Promise((resolve) => setImmediate(resolve))
}

