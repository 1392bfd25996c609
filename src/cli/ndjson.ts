/** NDJSON input of `svc db import`: batches of records with the line number each came from. */
import {createReadStream} from 'node:fs'
import {createInterface} from 'node:readline'
import {SvcError} from '../core/errors.js'
import {recordOfLine} from '../core/dbs/import-lines.js'

export {lineErrors} from '../core/dbs/import-lines.js'

export interface Batch {
  records: unknown[]
  /** The input line of each record (1-based). */
  lines: number[]
  /** Bytes of input read so far (for a progress bar). */
  bytes: number
}

/** Reads `source` (a file path, or lines already read from stdin) in batches, from line `fromLine` on. */
export async function* batches(source: string | string[], file: string, size: number, fromLine = 1): AsyncGenerator<Batch> {
  let lineNo = 0
  let bytes = 0
  let batch: Batch = {records: [], lines: [], bytes: 0}
  let lines: AsyncIterable<string> | string[]
  if (typeof source === 'string') {
    const input = createReadStream(source)
    const opened = new Promise<void>((ok, fail) => {
      input.once('open', () => ok())
      input.once('error', fail)
    })
    try {
      await opened
    } catch (error) {
      throw new SvcError('usage', 0, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
    lines = createInterface({input, crlfDelay: Infinity})
  } else lines = source
  for await (const line of lines) {
    lineNo++
    bytes += Buffer.byteLength(line) + 1
    if (lineNo < fromLine || !line.trim()) continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      throw new SvcError('usage', 0, `line ${lineNo} of ${file} is not JSON`)
    }
    batch.records.push(recordOfLine(value, lineNo, file))
    batch.lines.push(lineNo)
    if (batch.records.length >= size) {
      yield {...batch, bytes}
      batch = {records: [], lines: [], bytes: 0}
    }
  }
  if (batch.records.length) yield {...batch, bytes}
}

/** Reads all of stdin as lines (it cannot be read twice). */
export async function stdinLines(): Promise<string[]> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)
}
