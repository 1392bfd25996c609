/**
 * Background WAL checkpoints for `svc serve`: a worker thread (src/store/checkpoint-worker.ts)
 * copies committed pages from the WAL into the database file off the event loop: every few
 * milliseconds while commits come in, every quarter second when idle. Without it the commit that
 * crosses `wal_autocheckpoint` pays for the checkpoint, and the requests behind it wait (a p99 of
 * 150+ ms under load on a 1M-record db, against 80-90 ms with it). The connections' own
 * autocheckpoint stays on as a backstop.
 */
import {once} from 'node:events'
import {Worker} from 'node:worker_threads'
import {dataFile, sqliteAddon} from './connection.js'

export interface Checkpointer {
  stop(): Promise<void>
}

export function startCheckpointer(
  dataDir: string, options: {intervalMs?: number; busyIntervalMs?: number; log?: (line: string) => void} = {},
): Checkpointer {
  const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
    workerData: {file: dataFile(dataDir), intervalMs: options.intervalMs ?? 250, busyIntervalMs: options.busyIntervalMs ?? 5, addon: sqliteAddon()},
  })
  worker.unref()
  worker.on('message', (m: {error?: string}) => options.log?.(`wal checkpoint failed: ${m.error}`))
  worker.on('error', (error) => options.log?.(`wal checkpointer stopped: ${error.message}`))
  const exited = once(worker, 'exit')
  return {
    async stop() {
      worker.ref() // keep the process alive until the worker has closed its connection
      worker.postMessage('stop')
      await exited
    },
  }
}
