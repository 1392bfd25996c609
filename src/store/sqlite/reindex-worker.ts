/**
 * Worker thread of a schema change's reindex on SQLite (reindex-thread.ts): its own connection to
 * the data file (thread-connection.ts), running the slices it is sent (store/dbs/reindex.ts), one
 * transaction each. A slice's reads, its records' JSON and new index values, and its UPDATE hold
 * this thread and the file's write lock, not the server's thread. Answers 1 while slices are left, 0 after the last.
 */
import type Database from 'better-sqlite3'
import {reindexSlice} from '../dbs/reindex.js'
import {driveSync, type SqlStep, txSql} from '../sql/port.js'
import {RECORD_PLACE, sqliteDialect} from './dialect.js'
import {openWriterConnection, serveWrites} from './thread-connection.js'

/** The db whose reindex's next slice to run. */
export interface ReindexRequest {dbId: number}

const db = openWriterConnection()
const place = {...RECORD_PLACE, forUpdate: sqliteDialect.forUpdate, typed: sqliteDialect.typed}

/** Prepared statements by SQL text: a slice's are the same but for the last one's VALUES list. */
const statements = new Map<string, Database.Statement>()
function prepared(sql: string): Database.Statement {
  let statement = statements.get(sql)
  if (!statement) {
    if (statements.size >= 50) statements.clear()
    statement = db.prepare(sql)
    statements.set(sql, statement)
  }
  return statement
}

function exec(step: SqlStep): unknown {
  switch (step.op) {
    case 'get': return prepared(step.sql).get(...step.params)
    case 'all': return prepared(step.sql).all(...step.params)
    case 'run': return prepared(step.sql).run(...step.params).changes
    case 'lock': return undefined // the write transaction holds the file's one write lock
  }
}

serveWrites<ReindexRequest>(db, ({dbId}) => (driveSync(reindexSlice(place, dbId)(txSql), exec) ? 1 : 0))
