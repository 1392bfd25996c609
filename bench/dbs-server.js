// A server for the create-throughput bench, in its own process: `svc` (the real app over a data
// dir, private records create), `bare` (Hono + better-sqlite3, one INSERT per request into an empty
// table without indexes, same pragmas), `bare-same-storage` (the same route inserting into a copy
// of svc's data file, with its index columns, indexes and full-text trigger), or
// `bare-same-storage-pg` (that route writing svc's PostgreSQL records table).
import {serve} from '@hono/node-server'
import Database from 'better-sqlite3'
import {Hono} from 'hono'
import {join} from 'node:path'

const [mode, dataDir] = process.argv.slice(2)
let fetchHandler
let closeDb = () => {}
if (mode === 'bare') {
  const db = new Database(join(dataDir, 'bare.sqlite'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 10000')
  db.exec('CREATE TABLE IF NOT EXISTS records (id INTEGER PRIMARY KEY, data TEXT NOT NULL, created_at TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO records (data, created_at) VALUES (?, ?) RETURNING id')
  const app = new Hono()
  app.post('/records', async (c) => {
    const body = await c.req.json()
    const {id} = insert.get(JSON.stringify(body.record.data), new Date().toISOString())
    return c.json({id, data: body.record.data}, 201)
  })
  fetchHandler = app.fetch
  closeDb = () => db.close()
} else if (mode === 'bare-same-storage') {
  // The same bare route, writing where svc writes: the db_records table of a copy of svc's data
  // file (its rows, its 7 index columns with their indexes, its trigram full-text trigger), one
  // autocommit INSERT per request. Index column values come from the bench's field → column map.
  const [accountId, dbId, columns] = [Number(process.argv[4]), Number(process.argv[5]), JSON.parse(process.argv[6])]
  const db = new Database(join(dataDir, 'svc.sqlite'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 10000')
  const names = Object.keys(columns)
  const insert = db.prepare(`INSERT INTO db_records (account_id, db_id, table_name, data, ${names.map((f) => columns[f]).join(', ')}, created_at, updated_at)
    VALUES (?, ?, NULL, ?, ${names.map(() => '?').join(', ')}, ?, ?) RETURNING id`)
  const app = new Hono()
  app.post('/records', async (c) => {
    const body = await c.req.json()
    const data = body.record.data
    const t = new Date().toISOString()
    const {id} = insert.get(accountId, dbId, JSON.stringify(data), ...names.map((f) => data[f] ?? null), t, t)
    return c.json({id, data}, 201)
  })
  fetchHandler = app.fetch
  closeDb = () => db.close()
} else if (mode === 'bare-same-storage-pg') {
  // The same bare route on PostgreSQL: one INSERT into svc's db_records (its rows, its index
  // columns with their indexes, the generated search_text and its trigram index) per request, on a
  // pool as large as svc's, as a named prepared statement (as svc's are). argv: url accountId dbId columns.
  const [url, accountId, dbId, columns] = [process.argv[3], Number(process.argv[4]), Number(process.argv[5]), JSON.parse(process.argv[6])]
  const {default: pg} = await import('pg')
  const pool = new pg.Pool({connectionString: url, max: 10})
  const names = Object.keys(columns)
  const text = `INSERT INTO db_records (account_id, db_id, table_name, data, ${names.map((f) => columns[f]).join(', ')}, created_at, updated_at)
    VALUES ($1, $2, '', $3, ${names.map((_, i) => `$${i + 4}`).join(', ')}, $${names.length + 4}, $${names.length + 5}) RETURNING id`
  const app = new Hono()
  app.post('/records', async (c) => {
    const body = await c.req.json()
    const data = body.record.data
    const t = new Date().toISOString()
    const {rows: [{id}]} = await pool.query({name: 'insert', text, values: [accountId, dbId, JSON.stringify(data), ...names.map((f) => data[f] ?? null), t, t]})
    return c.json({id: Number(id), data}, 201)
  })
  fetchHandler = app.fetch
  closeDb = () => pool.end()
} else {
  const {startServer} = await import('../dist/http/serve.js')
  const server = await startServer({dataDir, port: 0})
  process.stdout.write(`${server.url}\n`)
  process.on('SIGTERM', () => server.close().then(() => process.exit(0)))
}
if (fetchHandler) {
  const s = serve({fetch: fetchHandler, port: 0, hostname: '127.0.0.1'}, (info) => process.stdout.write(`http://127.0.0.1:${info.port}\n`))
  process.on('SIGTERM', () => s.close(() => {
    closeDb()
    process.exit(0)
  }))
}
