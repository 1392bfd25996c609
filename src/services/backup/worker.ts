/**
 * A backup on a worker thread, for `svc serve`'s scheduled backups: the rows are read, encoded,
 * hashed and compressed there (./backup-worker.ts), so the server's thread only answers requests
 * meanwhile (docs/backups.md "Scheduled backups"; the p99 of other requests during a backup is
 * measured by bench/backup-throughput.mjs). Stopping the server stops the backup and removes its
 * partial file.
 */
import {once} from 'node:events'
import {rm} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'
import {Worker} from 'node:worker_threads'
import {SvcError, type ErrorCode} from '../../core/errors.js'
import type {StoreTarget} from '../../store/index.js'
import type {BackupResult} from './index.js'

function backupWorker(workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./backup-worker.js', import.meta.url), {workerData})
  // Under the TypeScript sources (tests), the thread loads the .ts worker through tsx's API.
  const api = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href
  const file = new URL('./backup-worker.ts', import.meta.url).href
  const code = `import(${JSON.stringify(api)}).then(({tsImport}) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(file)}))`
  return new Worker(code, {eval: true, workerData})
}

type Reply = {result: BackupResult} | {error: {message: string; code?: string; status?: number; hint?: string; svc: boolean}}

/** Writes an archive of `target` to `file` on a worker thread; `signal` stops it (the partial file is removed). */
export async function backupInWorker(target: StoreTarget, file: string, options: {passphrase?: string; signal?: AbortSignal} = {}): Promise<BackupResult> {
  const worker = backupWorker({target: {dataDir: target.dataDir, databaseUrl: target.databaseUrl}, file, passphrase: options.passphrase})
  const exited = once(worker, 'exit').catch(() => undefined)
  const stop = () => void worker.terminate()
  options.signal?.addEventListener('abort', stop, {once: true})
  try {
    const reply = await new Promise<Reply>((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
      worker.once('exit', (code) => reject(new Error(options.signal?.aborted ? 'the backup was stopped (the server is stopping)' : `the backup thread exited (${code})`)))
    })
    if ('result' in reply) return reply.result
    const e = reply.error
    throw e.svc ? new SvcError(e.code as ErrorCode, e.status ?? 0, e.message, undefined, e.hint) : new Error(e.message)
  } catch (error) {
    await rm(`${file}.partial`, {force: true})
    throw error
  } finally {
    options.signal?.removeEventListener('abort', stop)
    void worker.terminate()
    await exited
  }
}
