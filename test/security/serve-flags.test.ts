// `svc serve` flags: a bad --apps-url stops the server before it listens (exit 2); flags read from
// their environment variables behave as on the command line (issue 25 items 2 and 3).
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, cliEnv, svc, killOnExit} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

it('svc serve refuses an unusable --apps-url, and --apps-url without --public-url', async () => {
  const data = tempDir()
  const bad = await svc(['serve', '--port', '0', '--data', data, '--apps-url', 'https://apps.example.com'])
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain('{code}')
  const alone = await svc(['serve', '--port', '0', '--data', data, '--apps-url', 'https://{code}.apps.example.com'])
  expect(alone.code).toBe(2)
  expect(alone.stderr).toContain('--public-url')
}, 120_000)

interface Started {
  url?: string
  code?: number | null
  output: string
  stop(): Promise<void>
}

/** Spawns `svc serve` with exactly these args and env; resolves on `Listening on` or on exit. */
function serve(args: string[], env: Record<string, string> = {}): Promise<Started> {
  return new Promise((resolve) => {
    const child = killOnExit(spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {env: cliEnv(env)}))
    let output = ''
    let settled = false
    const stop = () => new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done()
      child.once('exit', () => done())
      child.kill('SIGTERM')
    })
    const onData = (d: Buffer) => {
      output += d.toString()
      const m = /Listening on (http:\/\/\S+)/.exec(output)
      if (m && !settled) {
        settled = true
        // Whatever the server writes at start (warnings) is in before the Listening line.
        resolve({url: m[1], output, stop})
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => {
      if (!settled) {
        settled = true
        resolve({code, output, stop})
      }
    })
  })
}

describe('flags with an environment variable and multiple values', () => {
  let upstream: Server
  let upstreamUrl = ''
  let hits = 0
  beforeAll(async () => {
    upstream = createServer((_req, res) => {
      hits++
      res.writeHead(200, {'content-type': 'application/json'})
      res.end('{"ok": true}')
    })
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((r) => upstream.close(() => r())))

  it('every such flag of every command is one this file covers (the manifest lists them)', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {flags: Record<string, {env?: string; multiple?: boolean}>}>}
    const found = Object.entries(manifest.commands).flatMap(([id, command]) =>
      Object.entries(command.flags).filter(([, flag]) => flag.env && flag.multiple).map(([name, flag]) => `${id} --${name} ${flag.env}`))
    // SVC_QUOTA (comma-separated, as --quota): test/security/public-read-limits.test.ts "takes the read budgets from SVC_QUOTA".
    expect(found).toEqual(['serve --allow-connector-hosts SVC_ALLOW_CONNECTOR_HOSTS', 'serve --quota SVC_QUOTA'])
  })

  /** A public connector method to the loopback upstream, called anonymously: its status. */
  async function callLoopback(env: Record<string, string>): Promise<{status: number; body: string}> {
    const data = tempDir()
    const admin = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
    expect(admin.code, admin.stderr).toBe(0)
    const server = await serve(['--data', data, '--quiet'], env)
    try {
      expect(server.url, server.output).toBeDefined()
      const headers = {authorization: `Bearer ${admin.json.token}`, 'content-type': 'application/json'}
      const created = await fetch(`${server.url}/svc/resources.json`, {method: 'POST', headers, body: JSON.stringify({resource: {
        kind: 'svc/custom_connector', code: 'local', name: 'local', url: upstreamUrl,
        fields: {methods: [{name: 'get', http_method: 'GET', path: '/', public: true}]}}})})
      expect(created.status, await created.clone().text()).toBe(201)
      const r = await fetch(`${server.url}/svc/connector/local/get`)
      return {status: r.status, body: await r.text()}
    } finally {
      await server.stop()
    }
  }

  it('SVC_ALLOW_CONNECTOR_HOSTS (comma-separated) starts the server and allow-lists each entry', async () => {
    const before = hits
    const allowed = await callLoopback({SVC_ALLOW_CONNECTOR_HOSTS: '10.0.0.0/8, 127.0.0.1'})
    expect(allowed.status, allowed.body).toBe(200)
    expect(JSON.parse(allowed.body)).toEqual({ok: true})
    expect(hits).toBe(before + 1)
    // An env list without the upstream's address: refused, nothing sent.
    const refused = await callLoopback({SVC_ALLOW_CONNECTOR_HOSTS: '10.0.0.0/8,192.168.1.1'})
    expect(refused.status, refused.body).toBe(502)
    expect(refused.body).toMatch(/refused by egress policy/)
    expect(hits).toBe(before + 1)
  }, 120_000)

  it('a bad entry in SVC_ALLOW_CONNECTOR_HOSTS stops the server with a message naming it', async () => {
    const server = await serve(['--data', tempDir()], {SVC_ALLOW_CONNECTOR_HOSTS: '127.0.0.1,not a host!'})
    await server.stop()
    expect(server.url).toBeUndefined()
    expect(server.code).toBe(2)
    expect(server.output).toContain('not a host!')
    expect(server.output).not.toContain('flatMap')
  }, 120_000)
})
