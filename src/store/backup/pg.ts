/**
 * Backup and restore on the PostgreSQL driver. A backup reads on its own connection inside one
 * `REPEATABLE READ READ ONLY` transaction (one consistent snapshot while the instances go on
 * writing), through a cursor (bounded memory). A restore fills the database in one transaction,
 * parents first, then moves each identity counter past the restored ids.
 */
import {StringDecoder} from 'node:string_decoder'
import {accountFilter, type BackupSql} from './account.js'
import {isCarried, parentsFirst, type AccountScope, type CellValue, type LineChunk, type StoreLoader, type StoreSnapshot, type TableShape} from './types.js'

type Client = import('pg').Client

interface ColumnInfo {name: string; type: string}

async function connect(url: string): Promise<Client> {
  const {default: pg} = await import('pg')
  const client = new pg.Client({connectionString: url})
  // An error on an idle client (the server going away) must not be an uncaught exception.
  client.on('error', () => {})
  await client.connect()
  return client
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/** The columns of a table that hold data (a generated column, such as the search text of a record, is derived). */
async function columnsOf(client: Client, table: string): Promise<ColumnInfo[]> {
  const {rows} = await client.query(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`, [table])
  return rows
}

async function carriedTables(client: Client): Promise<TableShape[]> {
  const {rows} = await client.query(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
  const names = (rows as {name: string}[]).map((r) => r.name).filter(isCarried)
  const {rows: fks} = await client.query(
    `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent FROM pg_constraint c
      JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'f' AND n.nspname = current_schema()`)
  const refs = new Map<string, Set<string>>()
  for (const {child, parent} of fks as {child: string; parent: string}[]) {
    const set = refs.get(child) ?? new Set<string>()
    set.add(parent)
    refs.set(child, set)
  }
  // Every table's columns in one query (not one a table).
  const {rows: columns} = await client.query(
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns
      WHERE table_schema = current_schema() AND is_generated = 'NEVER' ORDER BY table_name, ordinal_position`)
  const byTable = new Map<string, string[]>()
  for (const {t, c} of columns as {t: string; c: string}[]) byTable.set(t, [...(byTable.get(t) ?? []), c])
  return parentsFirst(names, refs).map((name) => ({name, columns: byTable.get(name) ?? []}))
}

async function migrationsOf(client: Client): Promise<number[]> {
  const {rows} = await client.query('SELECT id FROM schema_migrations ORDER BY id')
  return rows.map((r: {id: string | number}) => Number(r.id))
}

/**
 * Where this driver stores a value differently from the archive (which holds what SQLite holds, the
 * API's meaning): the records of a db without tables have table_name '' here (a NOT NULL column
 * the indexes can lead with), NULL there.
 */
const EMPTY_AS_NULL: Readonly<Record<string, readonly string[]>> = {db_records: ['table_name']}

/** The element type of the array a column's values are sent in (booleans travel as the archive's 0/1). */
const ARRAY_OF: Readonly<Record<string, string>> = {
  json: 'json', jsonb: 'jsonb', boolean: 'int', text: 'text', integer: 'integer', bigint: 'bigint', smallint: 'smallint',
  'double precision': 'float8', real: 'float4', numeric: 'numeric',
}

/** A column read so that both stores hold the same value: JSON as its text, numbers as numbers. */
function selectExpression(column: ColumnInfo): string {
  if (column.type === 'json' || column.type === 'jsonb') return `${quote(column.name)}::text`
  if (column.type === 'boolean') return `${quote(column.name)}::int`
  return quote(column.name)
}

function cell(value: unknown, column: ColumnInfo): CellValue {
  if (value === null || typeof value === 'number') return value as CellValue
  if (typeof value === 'string') {
    if (column.type === 'bigint' || column.type === 'integer' || column.type === 'smallint') {
      const n = Number(value)
      if (!Number.isSafeInteger(n)) throw new Error(`${column.name}: ${value} is beyond the integers an archive carries`)
      return n
    }
    if (column.type === 'double precision' || column.type === 'real' || column.type === 'numeric') return Number(value)
    return value
  }
  throw new Error(`${column.name}: a value of type ${typeof value} cannot be carried`)
}

const COPY_UNESCAPES: Record<string, string> = {b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v'}

/** One line of COPY's text format as an archive row (`\\N` null; backslash escapes; each value as its column's cell). */
function copyRow(line: string, columns: ColumnInfo[], emptyAsNull: ReadonlySet<number>): CellValue[] {
  const fields = line.split('\t')
  if (fields.length !== columns.length) throw new Error(`COPY gave ${fields.length} values for ${columns.length} columns`)
  return fields.map((field, i) => {
    if (field === '\\N') return null
    const text = field.includes('\\')
      ? field.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, e: string) =>
        e[0] === 'x' ? String.fromCharCode(parseInt(e.slice(1), 16)) : /^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8)) : COPY_UNESCAPES[e] ?? e)
      : field
    if (text === '' && emptyAsNull.has(i)) return null
    // Booleans are read as integers (selectExpression): their text is 0 or 1.
    return columns[i]!.type === 'boolean' ? Number(text) : cell(text, columns[i]!)
  })
}

async function primaryKey(client: Client, table: string): Promise<string[]> {
  const {rows} = await client.query(
    `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`, [quote(table)])
  return rows.map((r: {name: string}) => r.name)
}

/** `?` placeholders numbered (`$1`…): the shared SQL of ./account.ts holds no `?` inside a literal. */
function numbered(sql: string): string {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

function portOf(client: Client): BackupSql {
  return {
    all: async (sql, params) => (await client.query(numbered(sql), [...params])).rows,
    run: async (sql, params) => {
      await client.query(numbered(sql), [...params])
    },
  }
}

/** ` WHERE …` of an account's rows (numbered from `$1`), and its parameters (nothing without a scope). */
function scoped(table: string, scope?: AccountScope): {where: string; params: CellValue[]} {
  if (!scope) return {where: '', params: []}
  const {where, params} = accountFilter(table, scope.accountId)
  return {where: numbered(` WHERE ${where}`), params}
}

/** Rows a range of a table read by one of several connections holds (at most: the key is an integer and unique). */
const RANGE_ROWS = 10_000

/** The bytes of COPY's output: one row's line a line (the query's one column, passed through untouched). */
const COPY_LINES = "WITH (FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01')"

/** How many lines (newlines) a chunk of bytes holds. */
function countLines(bytes: Buffer): number {
  let n = 0
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++
  return n
}

/**
 * A row's line as PostgreSQL writes it: its values as one JSON array (to_json escapes text as JSON,
 * writes numbers exactly as json_build_array does), separated by `,` as JSON.stringify and SQLite's
 * json_array separate them: a line byte for byte the one SQLite's store writes for the same row.
 * Against json_build_array() (measured at 200,000 rows a table): half the server's CPU on the
 * journal, a third more on records, less in total (docs/benchmarks.md, "Backups").
 */
function lineExpression(table: TableShape, info: ColumnInfo[]): string {
  const byName = new Map(info.map((c) => [c.name, c]))
  const emptyAs = new Set(EMPTY_AS_NULL[table.name] ?? [])
  const values = table.columns.map((name) => {
    const value = emptyAs.has(name) ? `NULLIF(${quote(name)}, '')` : selectExpression(byName.get(name)!)
    return `coalesce(to_json(${value})::text, 'null')`
  })
  return `'[' || ${values.length ? values.join(` || ',' || `) : "''"} || ']'`
}

/** Collects the output of one COPY … TO STDOUT: its bytes and its lines. */
async function copyOut(client: Client, sql: string): Promise<LineChunk> {
  const {to} = await import('pg-copy-streams')
  const bytes: Buffer[] = []
  let rows = 0
  for await (const chunk of client.query(to(sql)) as AsyncIterable<Buffer>) {
    bytes.push(chunk)
    rows += countLines(chunk)
  }
  return {bytes, rows}
}

/**
 * A consistent snapshot of the PostgreSQL database at `url`: one `REPEATABLE READ READ ONLY`
 * transaction whose snapshot is exported (`pg_export_snapshot()`), so that more connections read
 * big tables in the very same snapshot (`SET TRANSACTION SNAPSHOT`), as `pg_dump -j` does.
 */
export async function pgSnapshot(url: string): Promise<StoreSnapshot> {
  const client = await connect(url)
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
  // The first statement takes the snapshot; exporting it lets other connections share it while this transaction is open.
  let exported: string | undefined
  try {
    await client.query('SAVEPOINT svc_export')
    exported = String((await client.query('SELECT pg_export_snapshot() AS id')).rows[0].id)
    await client.query('RELEASE SAVEPOINT svc_export')
  } catch {
    // (A server that cannot export one, a hot standby before PostgreSQL 10: one connection reads everything.)
    await client.query('ROLLBACK TO SAVEPOINT svc_export')
  }
  // More connections in the same snapshot, opened when a big table is first read; one that cannot be opened is done without.
  const helpers: Client[] = []
  let helpersWanted = 0
  const readersUpTo = async (n: number): Promise<Client[]> => {
    if (!exported || !/^[0-9A-Fa-f-]+$/.test(exported)) return [client]
    while (helpersWanted < n - 1) {
      helpersWanted++
      try {
        const helper = await connect(url)
        helpers.push(helper)
        await helper.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
        await helper.query(`SET TRANSACTION SNAPSHOT '${exported}'`)
      } catch {
        const helper = helpers.pop()
        await helper?.end().catch(() => {})
        break
      }
    }
    return [client, ...helpers.slice(0, n - 1)]
  }
  let cursors = 0
  return {
    driver: 'pg',
    migrations: () => migrationsOf(client),
    tables: () => carriedTables(client),
    sql: portOf(client),
    count: async (table, scope) => {
      const {where, params} = scoped(table.name, scope)
      return Number((await client.query(`SELECT count(*) AS n FROM ${quote(table.name)}${where}`, params)).rows[0].n)
    },
    async* lineChunks(table, {readers, rangeRows = RANGE_ROWS}) {
      const info = await columnsOf(client, table.name)
      const line = lineExpression(table, info)
      const pk = await primaryKey(client, table.name)
      const order = pk.length ? ` ORDER BY ${pk.map(quote).join(', ')}` : ''
      const copy = (where: string) => `COPY (SELECT ${line} FROM ${quote(table.name)}${where}${order}) TO STDOUT ${COPY_LINES}`
      const key = pk.length === 1 ? info.find((c) => c.name === pk[0]) : undefined
      let bounds: string[] = []
      if (readers > 1 && key && ['integer', 'bigint', 'smallint'].includes(key.type)) {
        // The key every RANGE_ROWS rows (from the key's index): ranges of at most that many rows, read a range a connection.
        const k = quote(key.name)
        const {rows} = await client.query(
          `SELECT k FROM (SELECT ${k} AS k, row_number() OVER (ORDER BY ${k}) AS n FROM ${quote(table.name)}) s WHERE n % ${Math.max(1, Math.floor(rangeRows))} = 0 ORDER BY k`)
        bounds = (rows as {k: string | number}[]).map((r) => String(r.k)).filter((v) => /^-?\d+$/.test(v))
      }
      if (!bounds.length) {
        // One COPY out of the snapshot (as pg_dump reads), its bytes passed on as they stream.
        const {to} = await import('pg-copy-streams')
        let last = 10
        for await (const chunk of client.query(to(copy(''))) as AsyncIterable<Buffer>) {
          if (!chunk.length) continue
          last = chunk[chunk.length - 1]!
          yield {bytes: [chunk], rows: countLines(chunk)}
        }
        if (last !== 10) throw new Error(`COPY of ${table.name} ended inside a row`)
        return
      }
      const k = quote(key!.name)
      const ranges = [...bounds.map((hi, i) => (i ? ` WHERE ${k} > ${bounds[i - 1]} AND ${k} <= ${hi}` : ` WHERE ${k} <= ${hi}`)), ` WHERE ${k} > ${bounds.at(-1)}`]
      const connections = await readersUpTo(readers)
      // Range i on connection i mod n; range i + n starts once range i was taken: at most n ranges are held at once.
      const inFlight: Promise<LineChunk>[] = []
      const start = (i: number) => {
        const read = copyOut(connections[i % connections.length]!, copy(ranges[i]!))
        read.catch(() => {}) // awaited in order below
        inFlight.push(read)
      }
      let next = 0
      for (; next < Math.min(connections.length, ranges.length); next++) start(next)
      try {
        for (let i = 0; i < ranges.length; i++) {
          const chunk = await inFlight.shift()!
          if (next < ranges.length) start(next++)
          if (chunk.bytes.length && chunk.bytes.at(-1)!.at(-1) !== 10) throw new Error(`COPY of ${table.name} ended inside a row`)
          yield chunk
        }
      } finally {
        // (On an early end, the reads under way finish before the connections close.)
        await Promise.allSettled(inFlight)
      }
    },
    async* rows(table, batchSize, scope) {
      const info = await columnsOf(client, table.name)
      const byName = new Map(info.map((c) => [c.name, c]))
      const columns = table.columns.map((name) => byName.get(name)!)
      const pk = await primaryKey(client, table.name)
      const order = pk.length ? ` ORDER BY ${pk.map(quote).join(', ')}` : ''
      const emptyAs = new Set((EMPTY_AS_NULL[table.name] ?? []).map((c) => table.columns.indexOf(c)))
      if (!scope) {
        // A whole table: one COPY out of the snapshot (as pg_dump reads), its text format parsed as it streams.
        const {to} = await import('pg-copy-streams')
        const stream = client.query(to(`COPY (SELECT ${columns.map(selectExpression).join(', ')} FROM ${quote(table.name)}${order}) TO STDOUT`))
        const decoder = new StringDecoder('utf8')
        let rest = ''
        let batch: CellValue[][] = []
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          rest += decoder.write(chunk)
          let start = 0
          for (let end = rest.indexOf('\n'); end !== -1; end = rest.indexOf('\n', start)) {
            batch.push(copyRow(rest.slice(start, end), columns, emptyAs))
            start = end + 1
          }
          rest = rest.slice(start)
          if (batch.length >= batchSize) {
            yield batch
            batch = []
          }
        }
        if (batch.length) yield batch
        return
      }
      const cursor = `svc_backup_${++cursors}`
      const {where, params} = scoped(table.name, scope)
      await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${columns.map(selectExpression).join(', ')} FROM ${quote(table.name)}${where}${order}`, params)
      try {
        for (;;) {
          const {rows} = await client.query({text: `FETCH ${batchSize} FROM ${cursor}`, rowMode: 'array'})
          if (!rows.length) break
          yield (rows as unknown[][]).map((row) => row.map((value, i) => (emptyAs.has(i) && value === '' ? null : cell(value, columns[i]))))
        }
      } finally {
        await client.query(`CLOSE ${cursor}`)
      }
    },
    async close() {
      for (const helper of helpers.splice(0)) await helper.end().catch(() => {})
      try {
        await client.query('COMMIT')
      } finally {
        await client.end()
      }
    },
  }
}

/** Rows in COPY's text format: tab-separated, `\\N` for null, backslash escapes (a null in `nullAsEmpty` columns is ''). */
export function copyText(rows: CellValue[][], nullAsEmpty: ReadonlySet<number>): string {
  let out = ''
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const v = row[i]
      if (i) out += '\t'
      if (v === null) out += nullAsEmpty.has(i) ? '' : '\\N'
      else if (typeof v === 'number') out += String(v)
      else out += /[\\\n\r\t]/.test(v) ? v.replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]!) : v
    }
    out += '\n'
  }
  return out
}
const COPY_ESCAPES: Record<string, string> = {'\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t'}

/** A loader into the PostgreSQL database at `url` (migrated by the caller first); one transaction. */
export async function pgLoader(url: string): Promise<StoreLoader> {
  const client = await connect(url)
  await client.query('BEGIN')
  const types = new Map<string, Map<string, string>>()
  const typeOf = async (table: string) => {
    let map = types.get(table)
    if (!map) {
      map = new Map((await columnsOf(client, table)).map((c) => [c.name, c.type]))
      types.set(table, map)
    }
    return map
  }
  const tables = () => carriedTables(client)
  let deferred: string[] | undefined
  let journalPos = false
  // A restore's rows go in through one COPY a table (as pg_restore's do), streamed batch by batch.
  let copy: {key: string; stream: import('pg-copy-streams').CopyStreamQuery; done: Promise<void>} | undefined
  const endCopy = async () => {
    if (!copy) return
    const {stream, done} = copy
    copy = undefined
    stream.end()
    await done
  }
  return {
    driver: 'pg',
    async bulkLoad() {
      // Indexes that back no constraint (keys and unique constraints stay: the rows are checked against them).
      const {rows} = await client.query(
        `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i WHERE i.schemaname = current_schema() AND i.tablename = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
        [(await tables()).map((t) => t.name)])
      for (const {name} of rows as {name: string}[]) await client.query(`DROP INDEX ${quote(name)}`)
      deferred = (rows as {def: string}[]).map((r) => r.def)
      // The journal's entries keep the positions they hold (their bookmarks, in the order they
      // committed at the source): the trigger that draws a position at commit (migration 70) is off
      // while they go in, and its sequence moved past them at the end.
      journalPos = (await client.query("SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass('journal') AND tgname = 'journal_pos'")).rows.length > 0
      if (journalPos) await client.query('ALTER TABLE journal DISABLE TRIGGER journal_pos')
    },
    sql: portOf(client),
    async newIds(table, column, n) {
      if (n === 0) return []
      // From the identity's own sequence: ids no other instance is given, whatever it writes meanwhile.
      const {rows} = await client.query('SELECT nextval(pg_get_serial_sequence($1, $2)) AS id FROM generate_series(1, $3)', [quote(table), column, n])
      return rows.map((r: {id: string}) => Number(r.id)).sort((a: number, b: number) => a - b)
    },
    async lock(names) {
      // The same advisory locks as the store's own writes (src/store/pg/port.ts), in one order.
      for (const name of names) await client.query("SELECT pg_advisory_xact_lock(hashtext('svc:' || $1::text))", [name])
    },
    migrations: () => migrationsOf(client),
    tables,
    async isEmpty() {
      for (const table of await tables()) {
        if ((await client.query(`SELECT 1 FROM ${quote(table.name)} LIMIT 1`)).rows.length) return false
      }
      return true
    },
    async clear() {
      const names = (await tables()).map((t) => quote(t.name))
      if (names.length) await client.query(`TRUNCATE ${names.join(', ')}`)
    },
    async insert(table, rows, options) {
      if (!rows.length) return
      const nullAsEmpty = new Set((EMPTY_AS_NULL[table.name] ?? []).map((c) => table.columns.indexOf(c)))
      if (deferred && !options?.skipExisting) {
        const key = `${table.name}(${table.columns.join(',')})`
        if (copy?.key !== key) {
          await endCopy()
          const {from} = await import('pg-copy-streams')
          // An identity column takes the value COPY is given (as INSERT's OVERRIDING SYSTEM VALUE); booleans read the archive's 0/1.
          const stream = client.query(from(`COPY ${quote(table.name)} (${table.columns.map(quote).join(', ')}) FROM STDIN`))
          const done = new Promise<void>((resolve, reject) => {
            stream.on('finish', resolve)
            stream.on('error', reject)
          })
          done.catch(() => {}) // awaited by the next write, endCopy() or commit
          copy = {key, stream, done}
        }
        const text = copyText(rows, nullAsEmpty)
        if (!copy.stream.write(text)) await Promise.race([new Promise((resolve) => copy!.stream.once('drain', resolve)), copy.done])
        return
      }
      await endCopy()
      const typeMap = await typeOf(table.name)
      // One array a column, unnested into rows: one parameter a column whatever the batch's size,
      // which PostgreSQL parses far faster than a VALUES list of a parameter a cell.
      const types = table.columns.map((c) => typeMap.get(c) ?? 'text')
      const arrays: unknown[][] = table.columns.map(() => [])
      for (const row of rows) row.forEach((value, i) => arrays[i]!.push(value === null && nullAsEmpty.has(i) ? '' : value))
      const names = table.columns.map((_, i) => `c${i}`)
      await client.query(
        `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(', ')}) OVERRIDING SYSTEM VALUE
          SELECT ${names.map((n, i) => (types[i] === 'boolean' ? `${n}::boolean` : n)).join(', ')}
          FROM unnest(${types.map((t, i) => `$${i + 1}::${ARRAY_OF[t] ?? 'text'}[]`).join(', ')}) AS u(${names.join(', ')})` +
        (options?.skipExisting ? ' ON CONFLICT DO NOTHING' : ''), arrays)
    },
    async commit() {
      try {
        await endCopy()
        if (journalPos) {
          await client.query("UPDATE journal SET pos = nextval('journal_pos_seq') WHERE pos IS NULL")
          await client.query("SELECT setval('journal_pos_seq', m) FROM (SELECT max(pos) AS m FROM journal) s WHERE m IS NOT NULL")
          await client.query('ALTER TABLE journal ENABLE TRIGGER journal_pos')
        }
        if (deferred?.length) {
          // Deferred triggers (the journal's) fire now: an index cannot be made on a table with pending trigger events.
          await client.query('SET CONSTRAINTS ALL IMMEDIATE')
          await client.query("SET LOCAL maintenance_work_mem = '256MB'")
          for (const def of deferred) await client.query(def)
        }
        const {rows} = await client.query(
          `SELECT table_name AS t, column_name AS c FROM information_schema.columns
            WHERE table_schema = current_schema() AND is_identity = 'YES'`)
        for (const {t, c} of rows as {t: string; c: string}[]) {
          // Only ever forward: an import's ids came from the sequence, and other instances may hold later ones.
          await client.query(`SELECT setval(s.seq, s.m) FROM (SELECT pg_get_serial_sequence($1, $2) AS seq, (SELECT max(${quote(c)}) FROM ${quote(t)}) AS m) s
            WHERE s.m IS NOT NULL AND s.m > coalesce(pg_sequence_last_value(s.seq::regclass), 0)`, [quote(t), c])
        }
        await client.query('COMMIT')
      } finally {
        await client.end()
      }
    },
    async rollback() {
      try {
        copy?.stream.destroy()
        copy = undefined
        await client.query('ROLLBACK')
      } catch {
        // the connection is gone: nothing was committed
      } finally {
        await client.end().catch(() => {})
      }
    },
  }
}
