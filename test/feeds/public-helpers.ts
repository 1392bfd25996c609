/**
 * Helpers of the public feed tests: the app over one of the two transports without the contract
 * check's body read (a stream never ends), and an SSE reader that collects events as they come.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {serve} from '@hono/node-server'
import {createParser} from 'eventsource-parser'
import type {SvcApp} from '../../src/http/app.js'
import {BIN, cliEnv, killOnExit} from '../helpers/cli.js'

export interface RawTransport {
  name: 'in-process' | 'http'
  origin: string
  fetch(path: string, init?: RequestInit): Promise<Response>
  close(): Promise<void>
}

export async function rawTransport(name: 'in-process' | 'http', app: SvcApp): Promise<RawTransport> {
  if (name === 'in-process') {
    const origin = 'http://localhost'
    return {name, origin, fetch: async (path, init) => app.request(origin + path, init), close: async () => {}}
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({fetch: app.fetch, port: 0, hostname: '127.0.0.1'}, () => resolve(s))
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    name, origin,
    fetch: (path, init) => fetch(origin + path, init),
    close: () => new Promise((resolve) => {
      ;(server as import('node:http').Server).closeAllConnections?.()
      server.close(() => resolve())
    }),
  }
}

export interface Seen {
  event: string
  id: string | undefined
  data: any
}

export interface Feed {
  status: number
  headers: Headers
  /** The JSON error of a refused feed. */
  error?: unknown
  events: Seen[]
  /** The `id:` the client last saw (events and heartbeats). */
  lastId(): string | undefined
  ended(): boolean
  close(): void
}

/** Opens a feed and reads it in the background until close() (or the server ends it). */
export async function openFeed(t: RawTransport, path: string, headers: Record<string, string> = {}): Promise<Feed> {
  const abort = new AbortController()
  const res = await t.fetch(path, {headers: {accept: 'text/event-stream', ...headers}, signal: abort.signal})
  const events: Seen[] = []
  let last: string | undefined
  let ended = false
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  const feed: Feed = {
    status: res.status, headers: res.headers, events,
    lastId: () => last,
    ended: () => ended,
    // As EventSource.close(): the body is cancelled (in-process, the abort alone reaches nothing).
    close: () => {
      void reader?.cancel().catch(() => {})
      abort.abort()
    },
  }
  if (res.status !== 200 || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await res.text()
    try {
      feed.error = JSON.parse(text)
    } catch {
      feed.error = text
    }
    ended = true
    return feed
  }
  const parser = createParser({
    onEvent(e) {
      if (e.id !== undefined) last = e.id
      let data: unknown = e.data
      try {
        data = JSON.parse(e.data)
      } catch {
        // text
      }
      events.push({event: e.event ?? 'message', id: e.id, data})
    },
  })
  reader = res.body!.getReader()
  const read = reader
  const decoder = new TextDecoder()
  void (async () => {
    try {
      for (;;) {
        const {done, value} = await read.read()
        if (done) break
        const text = decoder.decode(value, {stream: true})
        // A heartbeat's `id:` moves the client's place without an event.
        for (const m of text.matchAll(/^id: ?(.*)$/gm)) last = m[1]
        parser.feed(text)
      }
    } catch {
      // aborted
    } finally {
      ended = true
    }
  })()
  return feed
}

/** The `name=value` of the visitor cookie a response set. */
export function visitorCookie(headers: Headers): string {
  const m = /(svc_visitor=[^;]+)/.exec(headers.get('set-cookie') ?? '')
  if (!m) throw new Error('no visitor cookie')
  return m[1]!
}

export interface Served {
  child: ChildProcess
  /** The port it listens on (the one asked for, or the one the system gave for 0). */
  port: number
  stop(): Promise<void>
}

/**
 * `svc serve` on a port: 0 lets the system choose (no race with other test files for a port picked
 * beforehand); a restart asks for the port of the first start, so the pages' addresses stay. The port
 * was just let go by the server stopped before, yet another process may hold it for a moment: a
 * refused listen is tried again for a while.
 */
export async function serveOn(port: number, dataDir: string, databaseUrl: string | undefined): Promise<Served> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await serveOnce(port, dataDir, databaseUrl)
    } catch (err) {
      if (port === 0 || attempt >= 50 || !/EADDRINUSE/.test(String(err))) throw err
      await new Promise((done) => setTimeout(done, 200))
    }
  }
}

function serveOnce(port: number, dataDir: string, databaseUrl: string | undefined): Promise<Served> {
  return new Promise((resolve, reject) => {
    const args = [BIN, 'serve', '--port', String(port), '--data', dataDir, '--quiet', ...(databaseUrl ? ['--database-url', databaseUrl] : [])]
    const child = killOnExit(spawn(process.execPath, args, {env: cliEnv()}))
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`svc serve did not start: ${out}`))
    }, 60_000)
    const onExit = (code: number | null) => {
      clearTimeout(timer)
      reject(new Error(`svc serve exited ${code}: ${out}`))
    }
    child.on('exit', onExit)
    child.stderr.on('data', (d) => (out += d))
    child.stdout.on('data', (d) => {
      out += d
      const listening = /Listening on http:\/\/[^\s:]+:(\d+)/.exec(out)
      if (listening) {
        clearTimeout(timer)
        child.off('exit', onExit)
        resolve({
          child,
          port: Number(listening[1]),
          stop: () => new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done()
            child.once('exit', () => done())
            child.kill('SIGTERM')
          }),
        })
      }
    })
  })
}

