import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface StubRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

/** A stand-in for an external weather API, on 127.0.0.1 port 0, recording what it receives. */
export interface Stub {
  /** Base URL, e.g. `http://127.0.0.1:1234/api`. */
  url: string
  requests: StubRequest[]
  /** Temperature answered per city (default 20). */
  temperatures: Record<string, number>
  /** Lets the requests held by `/api/slow` answer. */
  release(): void
  /** Resolves once a request whose path starts with `path` has arrived (beyond the first `after` requests). */
  waitForRequest(path: string, after?: number, timeoutMs?: number): Promise<StubRequest>
  close(): Promise<void>
}

export async function startStub(): Promise<Stub> {
  const requests: StubRequest[] = []
  const temperatures: Record<string, number> = {}
  let releaseSlow: () => void = () => {}
  let slowGate = new Promise<void>((r) => (releaseSlow = r))
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub')
      requests.push({method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, body})
      const json = (status: number, value: unknown) => {
        res.writeHead(status, {'content-type': 'application/json'})
        res.end(JSON.stringify(value))
      }
      const weather = /^\/api\/weather\/([^/]+)$/.exec(url.pathname)
      if (weather) {
        const city = decodeURIComponent(weather[1]!)
        return json(200, {city, temperature: temperatures[city] ?? 20, units: url.searchParams.get('units') ?? 'metric'})
      }
      if (url.pathname === '/api/fail') {
        // A careless API that echoes the credentials it got: the runner must not pass them on.
        res.writeHead(503, {'content-type': 'text/plain'})
        return res.end(`upstream broken for ${req.headers.authorization ?? 'nobody'}`)
      }
      if (url.pathname === '/api/slow') return void slowGate.then(() => json(200, {temperature: 40, city: 'Slowtown'}))
      if (url.pathname === '/api/hang') return // never answers (until the stub closes)
      if (url.pathname === '/api/big') {
        res.writeHead(200, {'content-type': 'application/json'})
        return res.end(JSON.stringify({blob: 'x'.repeat(2 * 1024 * 1024)}))
      }
      if (url.pathname === '/api/redirect') {
        res.writeHead(302, {location: 'http://127.0.0.1:1/elsewhere'})
        return res.end()
      }
      // Echoes the request's headers with a 200: the secret must still appear nowhere in a run.
      if (url.pathname === '/api/whoami') return json(200, {headers: req.headers})
      if (url.pathname === '/api/echo') return json(200, {method: req.method, query: Object.fromEntries(url.searchParams), body: body ? JSON.parse(body) : null})
      json(404, {error: 'no such stub route'})
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/api`,
    requests,
    temperatures,
    release() {
      releaseSlow()
      slowGate = new Promise<void>((r) => (releaseSlow = r))
    },
    async waitForRequest(path, after = 0, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = requests.slice(after).find((r) => r.path.startsWith(path))
        if (found) return found
        if (Date.now() > deadline) throw new Error(`the stub got no request for ${path}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    close: () => new Promise<void>((resolve) => {
      releaseSlow()
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

/** The connector, flows and app used by the flow tests (the "Scheduled flow pattern" of platform-api.md). */
export const SECRET = 'stub-secret-4f9a1c0e7b2d'

export function weatherConnector(url: string) {
  return {
    kind: 'svc/custom_connector', code: 'weather', name: 'Weather API', url, secret_token: SECRET,
    fields: {methods: [
      {name: 'current', http_method: 'GET', path: '/weather/{city}'},
      {name: 'public_current', http_method: 'GET', path: '/weather/{city}', public: true},
      {name: 'fail', http_method: 'GET', path: '/fail'},
      {name: 'slow', http_method: 'GET', path: '/slow'},
      {name: 'hang', http_method: 'GET', path: '/hang'},
      {name: 'big', http_method: 'GET', path: '/big'},
      {name: 'redirect', http_method: 'GET', path: '/redirect'},
      {name: 'echo', http_method: 'POST', path: '/echo', public: true},
    ]},
  }
}

const alertIf = (source: string) => ({
  type: 'if', condition: `{${source}.temperature} > {threshold}`,
  then: [{type: 'mutation', set: {alert: 'hot in {city}', temperature: `{${source}.temperature}`}}],
  else: [{type: 'mutation', set: {alert: false, temperature: `{${source}.temperature}`}}],
})

/** For crons and manual runs: start parameters come from a first mutation step. */
export const heatCheck = {
  kind: 'svc/custom_flow', code: 'heat_check', name: 'Heat check',
  fields: {program: [
    {type: 'mutation', set: {city: 'Cairo', threshold: 30}},
    {type: 'connector', connector: 'weather', method: 'current', params: {city: '{city}', units: 'metric'}, into: 'json_object'},
    alertIf('json_object'),
  ]},
}

/** For app actions: the city comes with the action's body. */
export const cityWeather = {
  kind: 'svc/custom_flow', code: 'city_weather', name: 'City weather',
  fields: {program: [
    {type: 'mutation', set: {threshold: 30}},
    {type: 'connector', connector: 'weather', method: 'current', params: {city: '{city}'}, into: 'json_object'},
    alertIf('json_object'),
  ]},
}

export const flowCalling = (code: string, method: string) => ({
  kind: 'svc/custom_flow', code, fields: {program: [{type: 'connector', connector: 'weather', method, into: 'answer'}]},
})
