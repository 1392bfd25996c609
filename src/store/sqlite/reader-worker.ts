/**
 * Worker thread of the reader pool (src/store/sqlite/reader-pool.ts): its own connection to the
 * data file (a connection is not shareable across threads), read-only (`query_only`), running the
 * SELECTs it is sent one at a time. WAL lets it read beside the server's writer: it sees what was
 * committed when each statement starts. Prepared statements are kept by their SQL text, as the
 * server's connection does.
 */
import {createRequire} from 'node:module'
import {parentPort, workerData} from 'node:worker_threads'
import type Database from 'better-sqlite3'

const {file, addon} = workerData as {file: string; addon?: string}
const SqliteDatabase = createRequire(import.meta.url)('better-sqlite3') as typeof Database
const db = new SqliteDatabase(file, {nativeBinding: addon, fileMustExist: true})
db.pragma('busy_timeout = 10000')
db.pragma('query_only = 1')

const statements = new Map<string, Database.Statement>()
function prepared(sql: string): Database.Statement {
  let statement = statements.get(sql)
  if (!statement) {
    if (statements.size >= 500) statements.clear() // search SQL varies with its fields: keep the cache bounded
    statement = db.prepare(sql)
    statements.set(sql, statement)
  }
  return statement
}

export interface ReaderRequest {id: number; op: 'all' | 'get'; sql: string; params: unknown[]}
/** 'ready' once, when the connection is open and requests are listened to. */
export type ReaderReply = {id: number; rows: unknown} | {id: number; error: {message: string; code?: string}}

parentPort?.on('message', (m: ReaderRequest | 'stop') => {
  if (m === 'stop') {
    db.close()
    parentPort?.close()
    return
  }
  let reply: ReaderReply
  try {
    const statement = prepared(m.sql)
    reply = {id: m.id, rows: m.op === 'get' ? statement.get(...m.params) : statement.all(...m.params)}
  } catch (error) {
    reply = {id: m.id, error: {message: (error as Error).message, code: (error as {code?: string}).code}}
  }
  parentPort?.postMessage(reply)
})
parentPort?.postMessage('ready')
