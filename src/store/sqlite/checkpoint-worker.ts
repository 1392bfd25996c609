/**
 * Worker thread of `startCheckpointer` (src/store/sqlite/checkpointer.ts): its own connection to the data
 * file, running PASSIVE checkpoints. PASSIVE never waits for and never blocks the server's readers
 * or writer; it copies what it can from the WAL into the database file.
 *
 * While commits keep coming it checkpoints every `busyIntervalMs` (a few ms), so it keeps up with
 * them: a checkpoint that catches up lets the server's next commit write the WAL from its start
 * again, the WAL stays small, and no commit has to checkpoint ~40 MB itself (which showed as a
 * p99 of 150+ ms under load on a 1M-record db). When nothing new was committed it waits
 * `intervalMs`.
 */
import {createRequire} from 'node:module'
import {parentPort, workerData} from 'node:worker_threads'
import type Database from 'better-sqlite3'

const {file, intervalMs, busyIntervalMs, addon} = workerData as {file: string; intervalMs: number; busyIntervalMs: number; addon?: string}
const SqliteDatabase = createRequire(import.meta.url)('better-sqlite3') as typeof Database
const db = new SqliteDatabase(file, {nativeBinding: addon})
db.pragma('busy_timeout = 0')

let lastError = ''
/** What the previous checkpoint saw (frames in the WAL, frames checkpointed): unchanged means idle. */
let last = ''

function checkpoint(): number {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as {busy: number; log: number; checkpointed: number}[]
    lastError = ''
    const seen = `${result?.log}:${result?.checkpointed}`
    const active = seen !== last
    last = seen
    return active ? busyIntervalMs : intervalMs
  } catch (error) {
    const message = (error as Error).message
    // Busy: the writer holds what it needs; try again soon. Anything else is reported once.
    if (!(error as {code?: string}).code?.startsWith('SQLITE_BUSY') && message !== lastError) {
      lastError = message
      parentPort?.postMessage({error: message})
    }
    return intervalMs
  }
}

// The stop message can only arrive between two runs, when the next one is `timer`.
let timer = setTimeout(function loop() {
  timer = setTimeout(loop, checkpoint())
}, intervalMs)

parentPort?.on('message', () => {
  clearTimeout(timer)
  db.close()
  parentPort?.close()
})
