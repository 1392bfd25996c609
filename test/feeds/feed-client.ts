/**
 * A client of the live feeds for tests: opens an event stream over either transport (in-process
 * `app.request`, or real HTTP), parses its frames as EventSource does, and remembers the last id.
 * Streams are read without the contract check of test/helpers/contract.ts (it reads a body whole).
 */
import {serve} from '@hono/node-server'
import type {AddressInfo} from 'node:net'
import type {SvcApp} from '../../src/http/app.js'
import type {TransportName} from '../helpers/world.js'

export interface FeedEvent {
  event: string
  id: string | undefined
  data: any
}

export interface Feed {
  status: number
  headers: Headers
  /** Parsed events (not comments), in order. */
  events: FeedEvent[]
  /** The last `id:` seen (EventSource's lastEventId: ids of heartbeats count too). */
  lastId: string | undefined
  /** Comments seen (heartbeats). */
  comments: number
  /** The stream ended (by the server). */
  ended: boolean
  /** The stream, for a feed opened with `read: false` (the caller reads it, or never does). */
  body?: ReadableStream<Uint8Array> | null
  /** The answer's body when it is not a stream (an error). */
  error?: any
  close(): void
}

export interface RawTransport {
  name: TransportName
  fetch(path: string, init?: RequestInit): Promise<Response>
  close(): Promise<void>
}

export async function rawTransport(name: TransportName, app: SvcApp): Promise<RawTransport> {
  if (name === 'in-process') {
    return {name, fetch: async (path, init) => app.request(`http://localhost${path}`, init), close: async () => {}}
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({fetch: app.fetch, port: 0, hostname: '127.0.0.1'}, () => resolve(s))
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    name,
    fetch: (path, init) => fetch(origin + path, init),
    close: () => new Promise((resolve) => {
      ;(server as import('node:http').Server).closeAllConnections?.()
      server.close(() => resolve())
    }),
  }
}

/** A server already listening (`svc serve`, startServer). */
export function urlTransport(origin: string): RawTransport {
  return {name: 'http', fetch: (path, init) => fetch(origin + path, init), close: async () => {}}
}

/** Opens a feed and reads it in the background. `read: false`: never reads (a slow client). */
export async function openFeed(t: RawTransport, path: string, headers: Record<string, string> = {}, options: {read?: boolean} = {}): Promise<Feed> {
  const abort = new AbortController()
  const res = await t.fetch(path, {headers, signal: abort.signal})
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  let closed = false
  const feed: Feed = {
    status: res.status, headers: res.headers, events: [], lastId: undefined, comments: 0, ended: false,
    close: () => {
      // Nothing read after this (an in-process stream is cancelled through its reader).
      closed = true
      abort.abort()
      void (reader ? reader.cancel() : res.body?.cancel())?.catch(() => undefined)
    },
  }
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    feed.error = await res.json().catch(() => null)
    feed.ended = true
    return feed
  }
  if (options.read === false) return Object.assign(feed, {body: res.body})
  void (async () => {
    reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for (;;) {
        const {done, value} = await reader.read()
        if (done || closed) break
        buffer += decoder.decode(value, {stream: true})
        let cut: number
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          let event = 'message'
          const data: string[] = []
          let sawData = false
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              feed.comments++
              continue
            }
            const colon = line.indexOf(':')
            const field = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (field === 'event') event = value
            else if (field === 'id') feed.lastId = value
            else if (field === 'data') (data.push(value), (sawData = true))
          }
          if (sawData) feed.events.push({event, id: feed.lastId, data: JSON.parse(data.join('\n'))})
        }
      }
    } catch {
      // Aborted.
    }
    feed.ended = true
  })()
  return feed
}

/** The events of a feed that are changes (not resync). */
export const changes = (feed: Feed) => feed.events.filter((e) => e.event !== 'resync')
