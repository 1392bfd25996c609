import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createWorld, openTransport, TRANSPORTS, type Seed, type Transport, type TransportName, type World} from './world.js'

export interface CallOptions {
  /** Seeded login whose bearer token is sent; null for an anonymous request; `{token}` for a raw one. */
  as?: string | null | {token: string}
  body?: unknown
  /** A raw body string (bad JSON, ...) instead of `body`. */
  rawBody?: string
  headers?: Record<string, string>
}

export interface Reply {
  status: number
  headers: Headers
  text: string
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: any
}

/** What a test gets: the seeded world, the transport, and a `call` helper that authenticates as a seeded user. */
export interface Ctx {
  world: World
  transport: Transport
  call(method: string, path: string, options?: CallOptions): Promise<Reply>
}

export function makeCall(world: World, transport: Transport) {
  return async (method: string, path: string, options: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = {...options.headers}
    const as = options.as === undefined ? 'admin' : options.as
    if (typeof as === 'string') {
      const user = world.users[as]
      if (!user) throw new Error(`no seeded user ${as}`)
      headers.authorization = `Bearer ${user.token}`
    } else if (as && typeof as === 'object') headers.authorization = `Bearer ${as.token}`
    let body: string | undefined
    if (options.rawBody !== undefined) body = options.rawBody
    else if (options.body !== undefined) body = JSON.stringify(options.body)
    if (body !== undefined) headers['content-type'] ??= 'application/json'
    // Redirects are answers, as in-process: over HTTP a followed hand-over to `<code>.localhost` would
    // leave the server's address (Node does not resolve *.localhost).
    const res = await transport.fetch(path, {method, headers, body, redirect: 'manual'})
    const text = await res.text()
    let json: unknown
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return {status: res.status, headers: res.headers, text, json}
  }
}

/**
 * Runs `fn` once per transport (in-process and real HTTP on port 0), each over its own fresh
 * world seeded from `seed`. Every later issue adds its scenarios through this.
 */
export function describeBothTransports(title: string, seed: Seed | undefined, fn: (ctx: () => Ctx, transport: TransportName) => void) {
  for (const name of TRANSPORTS) {
    describe(`${title} [${name}]`, () => {
      let ctx: Ctx | undefined
      beforeAll(async () => {
        const world = await createWorld(seed)
        const transport = await openTransport(name, world.app)
        ctx = {world, transport, call: makeCall(world, transport)}
      })
      afterAll(async () => {
        await ctx?.transport.close()
        await ctx?.world.close()
      })
      fn(() => {
        if (!ctx) throw new Error('context not ready')
        return ctx
      }, name)
    })
  }
}

/** A declarative request and what must come back (pocketbase style). */
export interface Scenario extends CallOptions {
  name: string
  method: string
  /** Path, or a function of the context (to use seeded ids). */
  url: string | ((ctx: Ctx) => string)
  expectedStatus: number
  /** Deep partial match of the JSON body (toMatchObject). */
  expectedContent?: unknown
  /** Substrings the raw body must contain. */
  expectedText?: string[]
  /** Substrings the raw body must not contain. */
  notExpectedText?: string[]
  expectedHeaders?: Record<string, string | RegExp>
  /** Runs before the request (create fixtures); may return values used by `url`. */
  before?: (ctx: Ctx) => Promise<void>
}

/** Runs scenarios, in order, through both transports. */
export function runScenarios(title: string, seed: Seed | undefined, scenarios: Scenario[]) {
  describeBothTransports(title, seed, (ctx) => {
    for (const s of scenarios) {
      it(s.name, async () => {
        const c = ctx()
        await s.before?.(c)
        const url = typeof s.url === 'function' ? s.url(c) : s.url
        const reply = await c.call(s.method, url, s)
        expect(reply.status, `${s.method} ${url} → ${reply.text.slice(0, 300)}`).toBe(s.expectedStatus)
        if (s.expectedContent !== undefined) expect(reply.json).toMatchObject(s.expectedContent as object)
        for (const t of s.expectedText ?? []) expect(reply.text).toContain(t)
        for (const t of s.notExpectedText ?? []) expect(reply.text).not.toContain(t)
        for (const [h, v] of Object.entries(s.expectedHeaders ?? {})) {
          if (typeof v === 'string') expect(reply.headers.get(h)).toBe(v)
          else expect(reply.headers.get(h) ?? '').toMatch(v)
        }
      })
    }
  })
}
