/**
 * The worker side of the SQLite store's writer threads (threads.ts startWriter): the thread's own
 * connection to the data file, and the loop that runs each request it is sent in a write
 * transaction (BEGIN IMMEDIATE) and answers with a number. The write lock is taken here, on this
 * thread: the server holds its own writes meanwhile (group-commit.ts holdWrites), so none of them
 * waits for the lock in SQLite's busy handler, which would sleep on the server's thread.
 */
import {createRequire} from 'node:module'
import {performance} from 'node:perf_hooks'
import {parentPort, workerData} from 'node:worker_threads'
import type Database from 'better-sqlite3'

/**
 * A request's answer: a number (its meaning is the thread's own) and how long its transaction took
 * on this thread (ms: without the time the message waited for either thread), or the error it failed with.
 */
export type WriterReply = {changes: number; ms: number} | {error: {message: string; code?: string}}

/** This thread's connection to the file it was started for (workerData `file`, `addon`). */
export function openWriterConnection(): Database.Database {
  const {file, addon} = workerData as {file: string; addon?: string}
  const SqliteDatabase = createRequire(import.meta.url)('better-sqlite3') as typeof Database
  const db = new SqliteDatabase(file, {nativeBinding: addon, fileMustExist: true})
  // Another process sharing the file (a CLI call) may hold the write lock for a moment.
  db.pragma('busy_timeout = 10000')
  // As the server's connection (connection.ts): the writes run the same triggers and checks, and
  // a commit checkpoints the WAL itself only past ~40 MB (SQLite's default, 4 MB, made a commit of
  // this thread copy pages back and sync the file every few slices; svc serve's checkpointer does it).
  db.pragma('synchronous = NORMAL')
  db.pragma('wal_autocheckpoint = 10000')
  db.pragma('foreign_keys = ON')
  return db
}

/** Answers each request with `handle(request)` run in a transaction of its own; 'stop' closes the connection. */
export function serveWrites<Request>(db: Database.Database, handle: (request: Request) => number): void {
  const write = db.transaction(handle)
  parentPort?.on('message', (m: Request | 'stop') => {
    if (m === 'stop') {
      db.close()
      parentPort?.close()
      return
    }
    let reply: WriterReply
    const started = performance.now()
    try {
      reply = {changes: write.immediate(m), ms: performance.now() - started}
    } catch (error) {
      reply = {error: {message: (error as Error).message, code: (error as {code?: string}).code}}
    }
    parentPort?.postMessage(reply)
  })
  parentPort?.postMessage('ready')
}
