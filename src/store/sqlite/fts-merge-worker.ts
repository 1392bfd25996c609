/**
 * Worker thread of a db's purge on SQLite (src/store/sqlite/fts-merge.ts): its own connection to the
 * data file, running the purge's slices and then the trigram index's merge steps it is sent, one
 * transaction each. Here they hold this thread and the file's write lock, not the server's thread.
 * The server holds its own writes meanwhile (group-commit.ts holdWrites), so none of them waits for
 * the lock in SQLite's busy handler, which would sleep on the server's thread.
 */
import {createRequire} from 'node:module'
import {parentPort, workerData} from 'node:worker_threads'
import type Database from 'better-sqlite3'
import {mergeStep} from './fts-merge-step.js'

const {file, addon} = workerData as {file: string; addon?: string}
const SqliteDatabase = createRequire(import.meta.url)('better-sqlite3') as typeof Database
const db = new SqliteDatabase(file, {nativeBinding: addon, fileMustExist: true})
// Another process sharing the file (a CLI call) may hold the write lock for a moment.
db.pragma('busy_timeout = 10000')
// As the server's connection (connection.ts): a purge's deletes run the same triggers and checks.
db.pragma('synchronous = NORMAL')
db.pragma('foreign_keys = ON')

/**
 * A merge step (`deleteMerge`: FTS5's 'deletemerge' during the step, back to 0 at its end: see
 * fts-merge-step.ts), or one write statement (a purge's slice) in a transaction of its own.
 */
export type MergeRequest = {op: 'merge'; pages: number; deleteMerge: number} | {op: 'run'; sql: string; params: unknown[]}
/** `changes`: of a merge, rows FTS5 changed in its tables (fewer than 2: it found nothing to merge); of a run, rows the statement changed. */
export type MergeReply = {changes: number} | {error: {message: string; code?: string}}

const step = db.transaction((m: MergeRequest) => m.op === 'merge' ? mergeStep(db, m.pages, m.deleteMerge) : db.prepare(m.sql).run(...m.params).changes)

parentPort?.on('message', (m: MergeRequest | 'stop') => {
  if (m === 'stop') {
    db.close()
    parentPort?.close()
    return
  }
  let reply: MergeReply
  try {
    reply = {changes: step.immediate(m)}
  } catch (error) {
    reply = {error: {message: (error as Error).message, code: (error as {code?: string}).code}}
  }
  parentPort?.postMessage(reply)
})
parentPort?.postMessage('ready')
