/**
 * A render worker thread (src/services/renders/render-pool.ts): renders one prompt at a time off the server's
 * event loop, so a slow template cannot stall other requests, and the pool can stop it mid-tag.
 */
import {readlinkSync} from 'node:fs'
import {parentPort} from 'node:worker_threads'
import {isSvcError} from '../../core/errors.js'
import {renderPrompt, type RenderInput} from '../../core/prompts/render.js'

export interface RenderRequest {
  id: number
  input: RenderInput
}
export type RenderReply =
  | {ready: true; id?: undefined; /** Linux: this thread's id, for the pool to read its CPU time and lower its priority. */ tid?: number}
  | {id: number; ok: true; text: string}
  | {id: number; ok: false; error: {code: string; status: number; message: string; details?: Record<string, unknown>}}

// Priority: a thread starts at the server's own; the pool lowers it (nice 10, for good) by its
// thread id once it runs a heavy account's render (src/services/renders/render-pool.ts).

parentPort!.on('message', (message: RenderRequest) => {
  renderPrompt(message.input).then(
    (text) => parentPort!.postMessage({id: message.id, ok: true, text} satisfies RenderReply),
    (error: unknown) => {
      const e = isSvcError(error)
        ? {code: error.code, status: error.status, message: error.message, details: error.details}
        : {code: 'validation', status: 422, message: 'validation failed', details: {content: ['cannot be rendered']}}
      parentPort!.postMessage({id: message.id, ok: false, error: e} satisfies RenderReply)
    },
  )
})
/** This thread's Linux thread id (`/proc/thread-self` names it), else undefined. */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1))
    return Number.isInteger(tid) && tid > 0 ? tid : undefined
  } catch {
    return undefined
  }
}

// Loaded (liquidjs included): the pool starts a render's deadline only from here on.
parentPort!.postMessage({ready: true, tid: threadId()} satisfies RenderReply)
