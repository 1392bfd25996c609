/**
 * Worker thread of `startCheckpointer` (src/store/checkpointer.ts): its own connection to the data
 * file, running a PASSIVE checkpoint every `intervalMs`. PASSIVE never waits for and never blocks
 * the server's readers or writer; it copies what it can from the WAL into the database file, so
 * the server's commits rarely have to checkpoint themselves.
 */
import {createRequire} from 'node:module'
import {parentPort, workerData} from 'node:worker_threads'
import type Database from 'better-sqlite3'

const {file, intervalMs, addon} = workerData as {file: string; intervalMs: number; addon?: string}
const SqliteDatabase = createRequire(import.meta.url)('better-sqlite3') as typeof Database
const db = new SqliteDatabase(file, {nativeBinding: addon})
db.pragma('busy_timeout = 0')
let lastError = ''
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
    lastError = ''
  } catch (error) {
    const message = (error as Error).message
    // Busy: the writer holds what it needs; the next tick tries again. Anything else is reported once.
    if ((error as {code?: string}).code?.startsWith('SQLITE_BUSY') || message === lastError) return
    lastError = message
    parentPort?.postMessage({error: message})
  }
}, intervalMs)

parentPort?.on('message', () => {
  clearInterval(timer)
  db.close()
  parentPort?.close()
})
