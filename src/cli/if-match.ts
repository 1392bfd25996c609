/**
 * Commands that read a resource and then write or delete it (docs/cli.md "If-Match") send the
 * ETag of the version they read as `If-Match`: a change someone makes on the server in between is
 * never written over or deleted unseen — the server answers 412 and the command stops.
 */
import type {Client} from '../client/backend.js'
import {operationRequest, readAnswer, type CallArgs, type CallOutput} from '../client/typed.js'
import type {OperationId} from '../core/contract/operations.js'
import {isSvcError, SvcError} from '../core/errors.js'

/** A read (GET) with the header that makes a later write apply only to the version read: `{'if-match': etag}`. */
export async function readTagged<K extends OperationId>(client: Client, op: K, ...[input]: CallArgs<K>): Promise<{value: CallOutput<K>; ifMatch: Record<string, string>}> {
  const {method, path, options} = operationRequest(op, input as Parameters<typeof operationRequest>[1])
  const res = await client.raw(method, path, options)
  const etag = res.headers.get('etag')
  return {value: (await readAnswer(res)) as CallOutput<K>, ifMatch: etag ? {'if-match': etag} : {}}
}

/**
 * Runs a write sent with `readTagged`'s header. A 412 (the resource changed since it was read)
 * becomes a `conflict` (exit 1) naming `what`, saying nothing was done, and to run `command` again.
 */
export async function unlessChanged<T>(what: string, command: string, write: () => Promise<T>, nothing = 'nothing was written'): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (!isSvcError(error) || error.status !== 412) throw error
    throw new SvcError('conflict', 412, `${what} changed on the server after it was read: ${nothing}`, error.details,
      `run svc ${command} again (it reads the current version)`)
  }
}
