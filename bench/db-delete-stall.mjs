// How long purging a deleted big db holds the server's thread (SQLite runs statements on it), store
// level: the db's delete (a mark) then `purgeDeleted` (what the journal's retention runs once the db
// is past retention: its records in slices, then FTS5's merge of the emptied trigram segments).
// `node bench/db-delete-stall.mjs RECORDS CHECKOUT...` (each CHECKOUT built: its dist/ is used), each
// on a fresh SQLite data dir holding RECORDS records of account A's db with three indexed fields,
// and a small db of account B. WAL checkpoints and reader threads run as in `svc serve`.
// Measured while the purge runs: the longest gap between two turns of a 1 ms timer (wall), the
// longest stretch of the main thread's own CPU between two turns (what a quiet machine would show),
// and account B's requests meanwhile, one after the other: a record create and a list of its db,
// alternately — their longest answer, and how many were answered. After the purge, B's search
// must still find its records and A's are gone.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stall} from './lib.js'

const [records, ...checkouts] = process.argv.slice(2)

if (records === '--one') {
  console.log(JSON.stringify(await measure(Number(checkouts[0]), checkouts[1])))
  process.exit(0)
}
if (!Number(records) || !checkouts.length) {
  console.error('usage: node bench/db-delete-stall.mjs RECORDS CHECKOUT...')
  process.exit(2)
}
console.log(`| ${records} records (SQLite) | longest event-loop gap (CPU) | purge took | B's longest write / read during it | B's requests answered | load avg |`)
console.log('|---|---|---|---|---|---|')
for (const checkout of checkouts) {
  const run = spawnSync(process.execPath, [process.argv[1], '--one', records, resolve(checkout, 'dist')], {encoding: 'utf8', maxBuffer: 1 << 24})
  if (run.status !== 0) throw new Error(run.stderr)
  const r = JSON.parse(run.stdout.trim().split('\n').at(-1))
  console.log(`| ${checkout} | ${r.longestGapMs} ms (${r.longestCpuMs} ms) | ${r.tookMs} ms | ${r.bWriteMaxMs} / ${r.bReadMaxMs} ms | ${r.bRequests} | ${r.load} |`)
}

async function measure(n, dist) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-delete-'))
  const {openStore} = await import(`${dist}/store/index.js`)
  const {indexValues} = await import(`${dist}/core/dbs/records.js`)
  const {planSchema, tablePlan} = await import(`${dist}/core/dbs/schema.js`)
  const {buildQuery} = await import(`${dist}/core/dbs/query.js`)
  const s = openStore(dataDir)
  const readers = s.readers?.()
  let maintenance
  try {
    const schema = {fields: {name: 'string', email: 'string', age: 'integer'}, indexed_fields: ['name', 'email', 'age']}
    const table = tablePlan(planSchema(schema), null)
    const record = (i, who = 'user') => {
      const data = {name: `Person ${i}`, email: `${who}${i}@example.com`, age: i % 90, bio: 'lorem ipsum dolor sit amet'}
      return {tableName: null, data, index: indexValues(table, data)}
    }
    const a = await s.accounts.createAccount('bench-a')
    const b = await s.accounts.createAccount('bench-b')
    const big = await s.dbs.create(a.id, {name: 'big', code: 'big', app_id: null, schema, public_methods: {}, fields: {}})
    const small = await s.dbs.create(b.id, {name: 'small', code: 'small', app_id: null, schema, public_methods: {}, fields: {}})
    await s.dbs.createRecords(b.id, small.id, Array.from({length: 200}, (_, i) => record(i, 'bee')))
    for (let i = 0; i < n; i += 5000) await s.dbs.createRecords(a.id, big.id, Array.from({length: Math.min(5000, n - i)}, (_, k) => record(i + k)))
    maintenance = s.maintenance?.()
    readers?.start({threads: 2})
    await new Promise((resolve) => setTimeout(resolve, 1000)) // the threads open their connections
    const spec = (input) => ({...buildQuery(input, table, true), tableName: null})
    await s.dbs.delete(a.id, big.id)

    // Account B meanwhile: a create, then a list, one after the other until the purge ends.
    let purging = true
    let bWriteMax = 0
    let bReadMax = 0
    let bRequests = 0
    const bee = (async () => {
      for (let i = 200; purging; i++) {
        let t = performance.now()
        await s.dbs.createRecord(b.id, small.id, record(i, 'bee'))
        bWriteMax = Math.max(bWriteMax, performance.now() - t)
        t = performance.now()
        await s.dbs.query(b.id, small.id, spec({limit: '10'}))
        bReadMax = Math.max(bReadMax, performance.now() - t)
        bRequests += 2
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    })()
    const result = await stall(() => s.dbs.purgeDeleted())
    purging = false
    await bee
    const found = await s.dbs.query(b.id, small.id, spec({q: 'bee10', limit: '100'}))
    if (found.length < 11) throw new Error(`B's search found ${found.length} records after the purge`)
    return {...result, bWriteMaxMs: Math.round(bWriteMax), bReadMaxMs: Math.round(bReadMax), bRequests, load: loadavg().map((x) => x.toFixed(1)).join(' ')}
  } finally {
    await readers?.stop()
    await maintenance?.stop()
    await s.close()
    rmSync(dataDir, {recursive: true, force: true})
  }
}

