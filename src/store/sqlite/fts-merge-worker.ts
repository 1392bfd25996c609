/**
 * Worker thread of `mergeOffThread` (src/store/sqlite/fts-merge.ts): its own connection to the data
 * file, running the trigram index's merge steps it is sent, one transaction each. FTS5 drops a
 * segment whose every entry was deleted in one step whatever its size (0.4 s at 300,000 purged
 * records, 1.4-2.4 s at 1M): here it holds this thread and the file's write lock, not the server's
 * thread. The server holds its own writes meanwhile (group-commit.ts holdWrites), so none of them
 * waits for the lock in SQLite's busy handler, which would sleep on the server's thread.
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

/** `deleteMerge`: FTS5's 'deletemerge' during the step (back to 0 at its end: see fts-merge.ts mergeStep). */
export interface MergeRequest {pages: number; deleteMerge: number}
/** `changes`: rows FTS5 changed in its tables; fewer than 2 is a step that found nothing to merge. */
export type MergeReply = {changes: number} | {error: {message: string; code?: string}}

const step = db.transaction((m: MergeRequest) => mergeStep(db, m.pages, m.deleteMerge))

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
