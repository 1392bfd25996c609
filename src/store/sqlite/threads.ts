/**
 * The worker threads of the SQLite store, server side: how one is started (the built .js, or the
 * .ts under the TypeScript sources), and the writer threads that run long write work off the
 * server's thread on a connection of their own (a db's purge and its index merges: fts-merge.ts; a
 * schema change's reindex: reindex-thread.ts), one request at a time. Their worker side is
 * thread-connection.ts; the reader pool (reader-pool.ts) starts its threads here too.
 */
import {once} from 'node:events'
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'
import {Worker} from 'node:worker_threads'
import type {Sqlite} from './connection.js'
import {sqliteAddon} from './connection.js'
import {mapSqliteError} from './errors.js'
import type {WriterReply} from './thread-connection.js'

/**
 * A worker thread running `name` (a module of this folder, without its extension): the built .js,
 * or under the TypeScript sources (tests) the .ts loaded through tsx's API.
 */
export function sqliteWorker(name: string, workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, import.meta.url), {workerData})
  const api = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href
  const file = new URL(`./${name}.ts`, import.meta.url).href
  const code = `import(${JSON.stringify(api)}).then(({tsImport}) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(file)}))`
  return new Worker(code, {eval: true, workerData})
}

/** A writer thread, once its connection is open: one request at a time, answered with a number. */
export interface WriterThread<Request> {
  send(request: Request): Promise<number>
  /** As `send`, with how long the request's transaction took on the thread. */
  timed(request: Request): Promise<{changes: number; ms: number}>
  stop(): Promise<void>
}

/**
 * Starts the writer thread `name` (its module serves requests with thread-connection.ts
 * `serveWrites`) with a connection of its own to `db`'s file; undefined when it cannot (an
 * in-memory db, or a thread that fails to open the file): the caller then runs the work on `db`.
 * `what` names the thread in the error of a request it dropped by stopping.
 */
export async function startWriter<Request>(db: Sqlite, name: string, what: string): Promise<WriterThread<Request> | undefined> {
  if (!db.name || db.memory) return undefined
  let worker: Worker
  try {
    worker = sqliteWorker(name, {file: db.name, addon: sqliteAddon()})
  } catch {
    return undefined
  }
  const exited = once(worker, 'exit')
  const started = await new Promise<boolean>((resolve) => {
    worker.once('message', (m) => resolve(m === 'ready'))
    worker.once('error', () => resolve(false))
    void exited.then(() => resolve(false))
  })
  if (!started) {
    await worker.terminate()
    return undefined
  }
  let pending: {resolve(reply: {changes: number; ms: number}): void; reject(error: unknown): void} | undefined
  let alive = true
  const gone = () => {
    alive = false
    pending?.reject(new Error(`${what} stopped`))
    pending = undefined
  }
  worker.on('error', gone)
  void exited.then(gone)
  worker.on('message', (reply: WriterReply) => {
    const waiting = pending
    pending = undefined
    if (!waiting) return
    if ('error' in reply) waiting.reject(mapSqliteError(Object.assign(new Error(reply.error.message), {code: reply.error.code})))
    else waiting.resolve(reply)
  })
  // One request at a time (the callers send under holdWrites); none once the thread is gone.
  const timed = (request: Request) => new Promise<{changes: number; ms: number}>((resolve, reject) => {
    if (!alive) return reject(new Error(`${what} stopped`))
    pending = {resolve, reject}
    worker.postMessage(request)
  })
  return {
    send: async (request) => (await timed(request)).changes,
    timed,
    async stop() {
      if (alive) worker.postMessage('stop')
      await exited
    },
  }
}
