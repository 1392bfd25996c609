// The dbs repository's own operations, store level (no HTTP), to compare two builds of svc:
// `node bench/dbs-store-ops.mjs sqlite|pg ROUNDS CHECKOUT...` (each CHECKOUT built: its dist/ is
// used; pg needs SVC_TEST_DATABASE_URL, e.g. under scripts/pg-test-cluster.sh run). The builds take
// turns for ROUNDS rounds, each on a fresh data dir / database; the median round of each is printed.
// Figures: import of 20,000 records (4 batches), then for ~2 s each: creates, updates, gets, scoped
// gets and scoped deletes, 16 at a time; usage by field; a schema change that reindexes every record.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

const [store, rounds, ...checkouts] = process.argv.slice(2)

if (store === '--one') {
  console.log(JSON.stringify(await measure(rounds, checkouts[0])))
  process.exit(0)
}
if (!['sqlite', 'pg'].includes(store) || !checkouts.length) {
  console.error('usage: node bench/dbs-store-ops.mjs sqlite|pg ROUNDS CHECKOUT...')
  process.exit(2)
}
const results = new Map(checkouts.map((c) => [c, []]))
for (let r = 0; r < Number(rounds); r++) {
  for (const checkout of checkouts) {
    const run = spawnSync(process.execPath, [process.argv[1], '--one', store, resolve(checkout, 'dist')], {encoding: 'utf8'})
    if (run.status !== 0) throw new Error(run.stderr)
    results.get(checkout).push(JSON.parse(run.stdout))
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const figures = Object.keys(results.get(checkouts[0])[0])
console.log(`| figure (${store}) | ${checkouts.join(' | ')} |`)
console.log(`|---|${checkouts.map(() => '---').join('|')}|`)
for (const f of figures) console.log(`| ${f} | ${checkouts.map((c) => median(results.get(c).map((x) => x[f]))).join(' | ')} |`)

async function measure(kind, dist) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-store-ops-'))
  const {openStore, openStoreAt} = await import(`${dist}/store/index.js`)
  const {indexValues} = await import(`${dist}/core/dbs/records.js`)
  const {planSchema, tablePlan} = await import(`${dist}/core/dbs/schema.js`)
  let drop = async () => undefined
  let s
  if (kind === 'pg') {
    const {default: pg} = await import('pg')
    const base = process.env.SVC_TEST_DATABASE_URL
    if (!base) throw new Error('pg: SVC_TEST_DATABASE_URL is not set')
    const name = `bench_ops_${process.pid}`
    const admin = new pg.Client({connectionString: base})
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    s = await openStoreAt({dataDir, databaseUrl: base.replace(/\/[^/]*$/, `/${name}`)})
    drop = async () => {
      await admin.query(`DROP DATABASE ${name}`)
      await admin.end()
    }
  } else s = openStore(dataDir)
  const schema = {fields: {name: 'string', owner: 'string', n: 'integer'}, indexed_fields: ['name']}
  const reindexed = {...schema, indexed_fields: ['name', 'owner', 'n']}
  const table = tablePlan(planSchema(schema), null)
  const account = await s.accounts.createAccount('bench')
  const db = await s.dbs.create(account.id, {name: 'B', code: 'b', app_id: null, schema, public_methods: {}, fields: {}})
  const write = (i) => {
    const data = {name: `n${i}`, owner: 'v1', n: i % 90}
    return {tableName: null, data, index: indexValues(table, data)}
  }
  const out = {}
  let t = performance.now()
  for (let i = 0; i < 20_000; i += 5000) await s.dbs.createRecords(account.id, db.id, Array.from({length: 5000}, (_, j) => write(i + j)))
  out.import_20k_ms = Math.round(performance.now() - t)
  const perSecond = async (op) => {
    let n = 0
    const start = performance.now()
    while (performance.now() - start < 2000) await Promise.all(Array.from({length: 16}, () => op(n++)))
    return Math.round(n / ((performance.now() - start) / 1000))
  }
  const scope = {field: 'owner', value: 'v1'}
  out.creates_per_s = await perSecond((i) => s.dbs.createRecord(account.id, db.id, write(100_000 + i)))
  out.updates_per_s = await perSecond((i) => s.dbs.updateRecord(account.id, db.id, 1 + (i % 20_000), () => write(200_000 + i)))
  out.gets_per_s = await perSecond((i) => s.dbs.getRecord(account.id, db.id, 1 + (i % 20_000)))
  out.scoped_gets_per_s = await perSecond((i) => s.dbs.getRecord(account.id, db.id, 1 + (i % 20_000), scope))
  out.scoped_deletes_per_s = await perSecond((i) => s.dbs.deleteRecord(account.id, db.id, 1 + i, scope))
  t = performance.now()
  await s.dbs.usage(account.id, db.id, new Map([[null, ['name', 'owner', 'n', 'absent']]]))
  out.usage_ms = Math.round(performance.now() - t)
  const plan = tablePlan(planSchema(reindexed), null)
  t = performance.now()
  await s.dbs.update(account.id, db.id, {name: 'B', code: 'b', app_id: null, schema: reindexed, public_methods: {}, fields: {}},
    (_tableName, data) => indexValues(plan, data))
  out.reindex_ms = Math.round(performance.now() - t)
  await s.close()
  await drop()
  rmSync(dataDir, {recursive: true, force: true})
  return out
}
