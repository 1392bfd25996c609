/**
 * The thread a served backup runs on (./worker.ts): the same `backup()` as the CLI's, its reads,
 * encoding, checksum and compression all off the server's event loop. On Linux the thread lowers
 * its own priority (nice 10): the server's requests come first, the backup takes what is left.
 */
import {readlinkSync} from 'node:fs'
import {setPriority} from 'node:os'
import {parentPort, workerData} from 'node:worker_threads'
import type {StoreTarget} from '../../store/index.js'
import {backup} from './index.js'

try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1))
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10)
} catch {
  // not Linux: the thread keeps the process's priority
}

const {target, file, passphrase} = workerData as {target: StoreTarget; file: string; passphrase?: string}
try {
  // One connection and one block compressed at a time: a served backup leaves the other cores to the requests.
  parentPort!.postMessage({result: await backup(target, file, {passphrase, parallel: 1})})
} catch (error) {
  const e = error as Error & {code?: string; status?: number; hint?: string}
  parentPort!.postMessage({error: {message: e.message, code: e.code, status: e.status, hint: e.hint, svc: e.name === 'SvcError'}})
}
