// Indexed filter p50 of two builds of svc, interleaved in one process:
//   node bench/compare-filter.mjs [SIZE=100000] [ROUNDS=16] <checkout-a> <checkout-b>
// Each checkout must be built (`npm run build`; an older one may share this node_modules). Both get
// the same deterministic db of SIZE records; the query loops of `bench/dbs.js` (unique email, city,
// age, through createApp in process) then alternate round by round, so a drift of the machine
// reaches both alike. Reported: the median of the rounds' p50s, with their range.
// Why: two runs of `bench/dbs.js` on the same code differ by more than the ±10 % a change may
// cost (0.36-0.61 ms for the same filter, bench/notes/dbs.md); one run against an older figure
// cannot say whether a change moved it.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {machine, median, PEOPLE_SCHEMA as schema, percentile, syntheticPeople} from './lib.js'

const args = process.argv.slice(2)
const numbers = args.filter((a) => /^\d+$/.test(a)).map(Number)
const roots = args.filter((a) => !/^\d+$/.test(a)).map((a) => resolve(a))
if (roots.length !== 2) {
  console.error('usage: node bench/compare-filter.mjs [SIZE] [ROUNDS] <checkout-a> <checkout-b>')
  process.exit(2)
}
const [SIZE = 100_000, ROUNDS = 16] = numbers
const QUERIES = 200

/** One checkout: its own modules (a different path is a different module graph), store and app. */
async function setup(root) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href)
  const [{indexValues, validateData}, {planSchema, tablePlan}, {createApp}, {openStore}] =
    await Promise.all([load('core/dbs/records.js'), load('core/dbs/schema.js'), load('http/app.js'), load('store/index.js')])
  const {person} = syntheticPeople() // the data of bench/dbs.js: both sides hold the same records
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-compare-'))
  const store = openStore(dir)
  const account = await store.accounts.createAccount('bench')
  const user = await store.accounts.addUser({accountId: account.id, login: 'admin', role: 'admin'})
  const db = await store.dbs.create(account.id, {name: 'People', code: 'people', app_id: null, schema, public_methods: {}, fields: {}})
  const table = tablePlan(planSchema(schema), null)
  const samples = []
  for (let i = 0; i < SIZE; i += 5000) {
    const writes = []
    for (let j = i; j < Math.min(SIZE, i + 5000); j++) {
      const data = validateData(table, person(j))
      if (j % Math.max(1, Math.floor(SIZE / QUERIES)) === 0) samples.push(data)
      writes.push({tableName: null, data, index: indexValues(table, data)})
    }
    await store.dbs.createRecords(account.id, db.id, writes)
  }
  const app = createApp({store, systemPromptsDirs: []})
  const get = async (qs) => {
    const res = await app.request(`http://localhost/svc/dbs/people/search.json?${qs}`, {}, {svcEmbeddedUserId: user.id})
    if (res.status !== 200) throw new Error(`${root} ${qs}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  return {root, dir, get, samples, p50s: {email: [], city: [], age: []}}
}

const queries = {
  email: (s, i) => `filter[email]=${encodeURIComponent(s.samples[i % s.samples.length].email)}`,
  city: (s, i) => `filter[city]=${encodeURIComponent(s.samples[i % s.samples.length].city)}`,
  age: (s, i) => `filter[age]=${s.samples[i % s.samples.length].age}&sort=-id`,
}

const sides = []
for (const root of roots) sides.push(await setup(root))
for (const s of sides) for (let i = 0; i < 100; i++) await s.get(queries.email(s, i))
for (let round = 0; round < ROUNDS; round++) {
  for (const s of round % 2 ? [...sides].reverse() : sides) {
    for (const [kind, query] of Object.entries(queries)) {
      const times = []
      for (let i = 0; i < QUERIES; i++) {
        const t0 = performance.now()
        await s.get(query(s, i))
        times.push(performance.now() - t0)
      }
      s.p50s[kind].push(percentile(times, 50))
    }
  }
}
for (const s of sides) rmSync(s.dir, {recursive: true, force: true})

const summary = (xs) => ({p50_ms: +median(xs).toFixed(3), rounds_ms: [+Math.min(...xs).toFixed(3), +Math.max(...xs).toFixed(3)]})
const [a, b] = sides
console.log(JSON.stringify({
  machine: machine(), records: SIZE, rounds: ROUNDS, a: a.root, b: b.root,
  ...Object.fromEntries(Object.keys(queries).map((kind) => {
    const pa = summary(a.p50s[kind])
    const pb = summary(b.p50s[kind])
    return [kind, {a: pa, b: pb, ratio_b_to_a: +(pb.p50_ms / pa.p50_ms).toFixed(2)}]
  })),
}, null, 2))
