/**
 * The archive: one gzip file of JSON lines, written and read as a stream (bounded memory whatever
 * the size), the same whichever store it came from or goes to.
 *
 *   {"format":"svc-archive","version":1,...}          the header (svc version, store, migrations, secrets)
 *   {"table":"accounts","columns":["id","name",...]}  then the table's rows, one JSON array a line
 *   [1,"acme","{}","2026-11-27T18:00:00.000Z"]
 *   {"end":"accounts","rows":1}
 *   ...
 *   {"manifest":{"tables":{"accounts":1,...},"rows":N,"sha256":"…"}}
 *
 * The manifest's sha256 is of every line before it (each with its newline, uncompressed): a
 * truncated archive has no manifest, an edited or reordered one a different digest; a reader
 * refuses both, and a restore commits nothing until the digest has been checked.
 */
import {createHash, type Hash} from 'node:crypto'
import {createReadStream, createWriteStream, type WriteStream} from 'node:fs'
import {rename, rm} from 'node:fs/promises'
import {pipeline, type Readable} from 'node:stream'
import {StringDecoder} from 'node:string_decoder'
import {createGunzip, gzip} from 'node:zlib'
import {SvcError} from '../../core/errors.js'
import type {CellValue, LineChunk} from '../../store/backup/types.js'

export const ARCHIVE_FORMAT = 'svc-archive'
export const ARCHIVE_VERSION = 1

export interface ArchiveHeader {
  format: typeof ARCHIVE_FORMAT
  version: number
  svc_version: string
  store: 'sqlite' | 'pg'
  created_at: string
  migrations: number[]
  /** How secret values were encrypted, or null when they were left out. */
  secrets: SecretsHeader | null
  /** An account export (`svc admin export`): the account it holds, as the source numbered and named it. Absent in a whole backup. */
  account?: {id: number; name: string}
}

export interface SecretsHeader {
  kdf: 'scrypt'
  salt: string
  /** A known text encrypted with the key: a wrong passphrase is told before anything is written. */
  check: string
}

export interface ArchiveManifest {
  tables: Record<string, number>
  rows: number
  sha256: string
}

export type ArchiveLine =
  | {kind: 'header'; header: ArchiveHeader}
  | {kind: 'table'; name: string; columns: string[]}
  | {kind: 'rows'; rows: CellValue[][]}
  | {kind: 'end'; name: string; rows: number}
  | {kind: 'manifest'; manifest: ArchiveManifest}

const damaged = (detail: string) =>
  new SvcError('usage', 0, `the archive is damaged: ${detail}; nothing was written`, undefined,
    'use another archive (svc admin backup verify FILE checks one without restoring it)')

/** How a writer compresses: blocks compressed at once (on libuv's thread pool) and rows read at once (PostgreSQL's connections). */
export interface WriterParallelism {
  /** Blocks compressed at once on the thread pool while the rows are read: 1 (a served backup) keeps to one thread beside the reading. */
  compressJobs: number
  /** Uncompressed bytes a gzip member holds (BLOCK_BYTES unless given). */
  blockBytes?: number
}

/** Uncompressed bytes a gzip member holds: deflate's window is 32 KB, so a member this long costs ~0.1% in size. */
const BLOCK_BYTES = 1 << 20
/** gzip level 1: levels 1-3 share deflate's fast path; on an archive's JSON lines level 1 is within 1% of level 3's size. */
const GZIP_LEVEL = 1

/**
 * Writes an archive to `file` through `FILE.partial`, renamed into place only once complete and flushed.
 *
 * The text is compressed in blocks of 1 MB, each its own gzip member, several at once on libuv's
 * thread pool (as pigz does): a gzip file may hold several members one after the other, and every
 * gunzip (Node's, zcat, an older svc's reader) reads them as one stream, so the format is unchanged
 * (version 1). Reading the rows, hashing and compressing overlap instead of waiting on each other.
 */
export class ArchiveWriter {
  private readonly hash: Hash = createHash('sha256')
  private readonly out: WriteStream
  private readonly partial: string
  private failure: Error | undefined
  private readonly counts: Record<string, number> = {}
  private total = 0
  /** Blocks being compressed, in file order. */
  private readonly compressing: Promise<Buffer>[] = []
  private readonly compressJobs: number
  private readonly blockBytes: number
  bytes = 0

  constructor(private readonly file: string, parallelism: WriterParallelism = {compressJobs: 1}) {
    this.partial = `${file}.partial`
    this.compressJobs = Math.max(1, parallelism.compressJobs)
    this.blockBytes = Math.max(1, parallelism.blockBytes ?? BLOCK_BYTES)
    this.out = createWriteStream(this.partial, {flags: 'w', mode: 0o600})
    this.out.on('error', (error: Error) => {
      this.failure ??= error
    })
  }

  private pending: Buffer[] = []
  private pendingBytes = 0

  /** Adds a line (a value as its JSON). */
  private line(value: unknown): Promise<void> {
    return this.add(Buffer.from(`${JSON.stringify(value)}\n`, 'utf8'))
  }

  /** Adds whole lines of text (each ending with a newline): hashed now, compressed by the block. */
  private async add(bytes: Buffer): Promise<void> {
    if (this.failure) throw this.failure
    this.hash.update(bytes)
    this.bytes += bytes.length
    this.pending.push(bytes)
    this.pendingBytes += bytes.length
    if (this.pendingBytes >= this.blockBytes) await this.block()
  }

  /** Sends what is pending to be compressed as one member; writes finished members while too many are under way. */
  private async block(): Promise<void> {
    if (this.pendingBytes) {
      const input = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes)
      this.pending = []
      this.pendingBytes = 0
      const compressed = new Promise<Buffer>((resolve, reject) => gzip(input, {level: GZIP_LEVEL, chunkSize: 256 * 1024}, (error, out) => (error ? reject(error) : resolve(out))))
      compressed.catch(() => {}) // awaited in order below
      this.compressing.push(compressed)
    }
    // (The rows go on being read meanwhile: one job is one block compressed beside the reading.)
    while (this.compressing.length > this.compressJobs) await this.writeOldest()
  }

  private async writeOldest(): Promise<void> {
    const member = await this.compressing.shift()!
    if (this.failure) throw this.failure
    if (!this.out.write(member)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.out.off('drain', done)
          this.out.off('error', done)
          resolve()
        }
        this.out.on('drain', done)
        this.out.on('error', done)
      })
    }
    if (this.failure) throw this.failure
  }

  header(header: ArchiveHeader): Promise<void> {
    return this.line(header)
  }

  /** A table whose rows come as their cells: each row written as its JSON array. */
  table(name: string, columns: string[], batches: AsyncIterable<CellValue[][]>, onRows?: (n: number) => void): Promise<number> {
    return this.tableChunks(name, columns, chunksOf(batches, (batch) => batch.map((row) => `${JSON.stringify(row)}\n`).join('')), onRows)
  }

  /** A table whose rows come as their lines already (each a row's JSON array: StoreSnapshot.lines). */
  tableLines(name: string, columns: string[], batches: AsyncIterable<string[]>, onRows?: (n: number) => void): Promise<number> {
    return this.tableChunks(name, columns, chunksOf(batches, (batch) => `${batch.join('\n')}\n`), onRows)
  }

  /**
   * A table whose rows come as the bytes of their lines (StoreSnapshot.lineChunks: each chunk whole
   * lines, each line a row's JSON array ending with a newline), passed through as they are.
   */
  async tableChunks(name: string, columns: string[], chunks: AsyncIterable<LineChunk>, onRows?: (n: number) => void): Promise<number> {
    await this.line({table: name, columns})
    let n = 0
    for await (const chunk of chunks) {
      for (const bytes of chunk.bytes) await this.add(bytes)
      n += chunk.rows
      onRows?.(chunk.rows)
    }
    await this.line({end: name, rows: n})
    this.counts[name] = n
    this.total += n
    return n
  }

  /** Writes the manifest, flushes, and moves the finished file into place. */
  async finish(): Promise<ArchiveManifest> {
    const manifest: ArchiveManifest = {tables: this.counts, rows: this.total, sha256: this.hash.digest('hex')}
    const text = Buffer.from(`${JSON.stringify({manifest})}\n`, 'utf8')
    this.pending.push(text)
    this.pendingBytes += text.length
    await this.block()
    while (this.compressing.length) await this.writeOldest()
    this.out.end()
    await new Promise<void>((resolve, reject) => {
      if (this.out.closed) return this.failure ? reject(this.failure) : resolve()
      this.out.once('close', () => (this.failure ? reject(this.failure) : resolve()))
    })
    if (this.failure) throw this.failure
    await rename(this.partial, this.file)
    return manifest
  }

  /** Removes what was written (after an error): no half archive is left behind. */
  async abort(): Promise<void> {
    await Promise.allSettled(this.compressing.splice(0))
    this.out.destroy()
    await rm(this.partial, {force: true})
  }
}

/** Batches of rows as chunks of their lines' bytes (one chunk a batch), for ArchiveWriter.tableChunks. */
async function* chunksOf<T>(batches: AsyncIterable<T[]>, text: (batch: T[]) => string): AsyncGenerator<LineChunk> {
  for await (const batch of batches) yield {rows: batch.length, bytes: [Buffer.from(text(batch), 'utf8')]}
}

/** Reads an archive line by line, checking its structure as it goes and its digest at the manifest. */
export async function* readArchive(file: string, batchSize = 1000, onBytes?: (compressedBytesRead: number) => void): AsyncGenerator<ArchiveLine> {
  const hash = createHash('sha256')
  const gunzip = createGunzip()
  const source = createReadStream(file)
  if (onBytes) {
    // The file's bytes read so far: the measure of a progress bar (the rows are counted only at the manifest).
    let read = 0
    source.on('data', (chunk) => onBytes((read += chunk.length)))
  }
  // pipeline: a read error (no such file) destroys the gunzip stream too, and its iteration throws.
  pipeline(source, gunzip, () => {})
  let header: ArchiveHeader | undefined
  let table: {name: string; columns: string[]; rows: number} | undefined
  let batch: CellValue[][] = []
  let manifest: ArchiveManifest | undefined
  const seen = new Map<string, number>()
  try {
    for await (const text of splitLines(gunzip)) {
      if (manifest) throw damaged('there is data after its manifest')
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        throw damaged('a line is not JSON')
      }
      if (!header) {
        header = checkHeader(value)
        hash.update(`${text}\n`)
        yield {kind: 'header', header}
        continue
      }
      if (Array.isArray(value)) {
        if (!table) throw damaged('a row stands outside a table')
        if (value.length !== table.columns.length || !value.every(isCell)) throw damaged(`a row of ${table.name} does not fit its columns`)
        hash.update(`${text}\n`)
        batch.push(value as CellValue[])
        table.rows++
        if (batch.length >= batchSize) {
          yield {kind: 'rows', rows: batch}
          batch = []
        }
        continue
      }
      const object = value as Record<string, unknown>
      if (object && typeof object.table === 'string' && Array.isArray(object.columns)) {
        if (table) throw damaged(`table ${object.table} starts inside ${table.name}`)
        if (seen.has(object.table)) throw damaged(`table ${object.table} appears twice`)
        if (!object.columns.every((c) => typeof c === 'string')) throw damaged(`the columns of ${object.table}`)
        hash.update(`${text}\n`)
        table = {name: object.table, columns: object.columns as string[], rows: 0}
        yield {kind: 'table', name: table.name, columns: table.columns}
      } else if (object && typeof object.end === 'string') {
        if (!table || table.name !== object.end) throw damaged(`table ${object.end} ends where it did not start`)
        if (object.rows !== table.rows) throw damaged(`table ${table.name} holds ${table.rows} rows where its end says ${object.rows}`)
        hash.update(`${text}\n`)
        if (batch.length) yield {kind: 'rows', rows: batch}
        batch = []
        seen.set(table.name, table.rows)
        yield {kind: 'end', name: table.name, rows: table.rows}
        table = undefined
      } else if (object && object.manifest && typeof object.manifest === 'object') {
        if (table) throw damaged(`the manifest comes inside table ${table.name}`)
        manifest = object.manifest as ArchiveManifest
        if (manifest.sha256 !== hash.digest('hex')) throw damaged('its checksum does not match its content (edited or reordered)')
        for (const [name, rows] of seen) {
          if (manifest.tables?.[name] !== rows) throw damaged(`the manifest's count of ${name} does not match`)
        }
        if (Object.keys(manifest.tables ?? {}).length !== seen.size) throw damaged('the manifest names tables the archive does not hold')
        yield {kind: 'manifest', manifest}
      } else {
        throw damaged('a line of an unknown kind')
      }
    }
  } catch (error) {
    if (error instanceof SvcError) throw error
    throw damaged(describeStreamError(error as Error))
  } finally {
    gunzip.destroy()
  }
  if (!header) throw damaged('it is empty')
  if (!manifest) throw damaged('it ends before its manifest (truncated)')
}

/** The lines of a stream of UTF-8 text (a stream error is thrown to the reader). */
async function* splitLines(stream: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8')
  let rest = ''
  for await (const chunk of stream) {
    rest += decoder.write(chunk as Buffer)
    let start = 0
    for (let end = rest.indexOf('\n'); end !== -1; end = rest.indexOf('\n', start)) {
      yield rest.slice(start, end)
      start = end + 1
    }
    rest = rest.slice(start)
  }
  rest += decoder.end()
  if (rest) yield rest
}

function describeStreamError(error: Error & {code?: string}): string {
  if (error.code === 'ENOENT') return 'no such file'
  if (error.code === 'Z_BUF_ERROR' || /unexpected end/i.test(error.message)) return 'it ends before its manifest (truncated)'
  if (error.code?.startsWith('Z_')) return 'it is not a gzip file, or its compressed data is corrupt'
  return error.message
}

function isCell(value: unknown): boolean {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
}

function checkHeader(value: unknown): ArchiveHeader {
  const header = value as Partial<ArchiveHeader>
  if (!header || header.format !== ARCHIVE_FORMAT) throw damaged('it is not an svc archive (no header)')
  if (header.version !== ARCHIVE_VERSION) {
    throw new SvcError('usage', 0, `the archive is of format version ${header.version}; this svc reads version ${ARCHIVE_VERSION}`, undefined,
      'restore it with the svc version that made it (the header names it)')
  }
  if (!Array.isArray(header.migrations) || (header.store !== 'sqlite' && header.store !== 'pg')) throw damaged('its header is incomplete')
  if (header.account !== undefined && (!header.account || typeof header.account.id !== 'number' || typeof header.account.name !== 'string')) {
    throw damaged('its header names an account badly')
  }
  return header as ArchiveHeader
}
