// How long deleting a big db holds the server's thread (SQLite runs statements on it): the longest
// gap in the event loop while `dbs.delete` runs, and the delete's own time, store level.
// `node bench/db-delete-stall.mjs RECORDS CHECKOUT...` (each CHECKOUT built: its dist/ is used), each
// on a fresh SQLite data dir holding RECORDS records of a db with three indexed fields.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

const [records, ...checkouts] = process.argv.slice(2)

if (records === '--one') {
  console.log(JSON.stringify(await measure(Number(checkouts[0]), checkouts[1])))
  process.exit(0)
}
if (!Number(records) || !checkouts.length) {
  console.error('usage: node bench/db-delete-stall.mjs RECORDS CHECKOUT...')
  process.exit(2)
}
console.log(`| ${records} records (SQLite) | longest event-loop gap | delete answered after |`)
console.log('|---|---|---|')
for (const checkout of checkouts) {
  const run = spawnSync(process.execPath, [process.argv[1], '--one', records, resolve(checkout, 'dist')], {encoding: 'utf8'})
  if (run.status !== 0) throw new Error(run.stderr)
  const r = JSON.parse(run.stdout)
  console.log(`| ${checkout} | ${r.longestGapMs} ms | ${r.deleteMs} ms |`)
}

async function measure(n, dist) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-delete-'))
  const {openStore} = await import(`${dist}/store/index.js`)
  const {indexValues} = await import(`${dist}/core/dbs/records.js`)
  const {planSchema, tablePlan} = await import(`${dist}/core/dbs/schema.js`)
  const s = openStore(dataDir)
  try {
    const schema = {fields: {name: 'string', email: 'string', age: 'integer'}, indexed_fields: ['name', 'email', 'age']}
    const table = tablePlan(planSchema(schema), null)
    const account = await s.accounts.createAccount('bench')
    const db = await s.dbs.create(account.id, {name: 'big', code: 'big', app_id: null, schema, public_methods: {}, fields: {}})
    for (let i = 0; i < n; i += 5000) {
      const batch = Array.from({length: Math.min(5000, n - i)}, (_, k) => {
        const data = {name: `Person ${i + k}`, email: `user${i + k}@example.com`, age: (i + k) % 90, bio: 'lorem ipsum dolor sit amet'}
        return {tableName: null, data, index: indexValues(table, data)}
      })
      await s.dbs.createRecords(account.id, db.id, batch)
    }
    // A timer every millisecond: the longest time between two of its turns is what another request
    // waits at worst.
    let last = performance.now()
    let longest = 0
    let running = true
    const tick = () => {
      const t = performance.now()
      longest = Math.max(longest, t - last)
      last = t
      if (running) setTimeout(tick, 1)
    }
    setTimeout(tick, 1)
    const t0 = performance.now()
    await s.dbs.delete(account.id, db.id)
    const deleteMs = Math.round(performance.now() - t0)
    await new Promise((resolve) => setTimeout(resolve, 5)) // the turn after the delete ends its last gap
    running = false
    return {longestGapMs: Math.round(longest), deleteMs}
  } finally {
    await s.close()
    rmSync(dataDir, {recursive: true, force: true})
  }
}
