// `svc db watch` (docs/cli.md, docs/realtime.md): the changes of a db printed as they come, one
// line each (`--json`: one JSON object a line), against a server (reconnecting with Last-Event-ID
// when the server restarts: nothing missed, nothing twice) and against the embedded backend of a
// data dir written by another process.
import {spawn, type ChildProcess} from 'node:child_process'
import {rmSync} from 'node:fs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cliEnv, killOnExit, svc} from '../helpers/cli.js'
import {createTestDatabase, PG_URL, seedAdminToken} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'
import {serveOn, type Served} from './public-helpers.js'

const POLL = {timeout: 60_000, interval: 100}

/** A long-running `svc db watch`, its stdout lines and stderr collected. */
function watch(args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = killOnExit(spawn(process.execPath, [BIN, 'db', 'watch', ...args], {env: cliEnv(env)}))
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (err += d))
  return {
    lines: () => out.split('\n').filter(Boolean),
    err: () => err,
    stop: () => new Promise<number | null>((done) => {
      if (child.exitCode !== null) return done(child.exitCode)
      child.once('exit', (code) => done(code))
      child.kill('SIGINT')
    }),
  }
}

describe(`svc db watch [${PG_URL ? 'postgres' : 'sqlite'}]`, {timeout: 240_000}, () => {
  const dataDir = tempDir()
  let database: {url: string; drop(): Promise<void>} | undefined
  let port = 0
  let url = ''
  let token = ''
  let server: Served | undefined
  const target = () => ['--url', url, '--token', token]
  const dbTarget = () => ['--data', dataDir, ...(database ? ['--database-url', database.url] : [])]

  beforeAll(async () => {
    database = PG_URL ? await createTestDatabase() : undefined
    token = await seedAdminToken(dataDir, database?.url)
    server = await serveOn(0, dataDir, database?.url)
    port = server.port
    url = `http://127.0.0.1:${port}`
    const created = await svc(['db', 'create', 'Notes', '--code', 'notes', '--schema', '{"fields":{"title":"string"}}', ...target()])
    expect(created.code, created.stderr).toBe(0)
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await database?.drop()
    rmSync(dataDir, {recursive: true, force: true})
  })

  const create = async (title: string) => {
    for (let attempt = 0; attempt < 300; attempt++) {
      const r = await svc(['db', 'records', 'create', 'notes', JSON.stringify({title}), '--json', ...target()])
      if (r.code === 0) return JSON.parse(r.stdout).id as number
      if (!/cannot reach|ECONNREFUSED|network/i.test(r.stderr)) throw new Error(r.stderr)
      await new Promise((done) => setTimeout(done, 200))
    }
    throw new Error('the server did not come back')
  }

  it('prints each change as it comes (--json: one object a line), and resumes after a server restart without a gap or a repeat', async () => {
    const w = watch(['notes', '--json', ...target()])
    await expect.poll(() => w.err(), POLL).toMatch(/watching notes/)
    // The feed is open once the command says so... give the connection its first answer.
    const first = await create('one')
    await expect.poll(() => w.lines().length, POLL).toBe(1)
    const e1 = JSON.parse(w.lines()[0]!)
    expect(e1).toEqual({event: 'create', id: expect.stringMatching(/^\d+$/), data: expect.objectContaining({id: first, data: {title: 'one'}})})
    const upd = await svc(['db', 'records', 'update', 'notes', String(first), '{"title":"uno"}', ...target()])
    expect(upd.code, upd.stderr).toBe(0)
    await expect.poll(() => w.lines().length, POLL).toBe(2)
    // The server goes away and comes back on the same address; writes go on meanwhile.
    await server!.stop()
    const during = svc(['db', 'records', 'create', 'notes', '{"title":"while down"}', ...dbTarget()])
    expect((await during).code).toBe(0)
    server = await serveOn(port, dataDir, database?.url)
    await create('two')
    await expect.poll(() => w.lines().length, POLL).toBe(4)
    const events = w.lines().map((l) => JSON.parse(l))
    expect(events.map((e) => [e.event, e.data.data?.title])).toEqual([['create', 'one'], ['update', 'uno'], ['create', 'while down'], ['create', 'two']])
    const ids = events.map((e) => e.id)
    expect(new Set(ids).size).toBe(4)
    expect([...ids].sort()).toEqual(ids)
    expect(w.err()).toMatch(/reconnect/)
    expect(await w.stop()).toBe(0)
  })

  it('plain lines; --table on a db without tables is a clear error; an unknown db too', async () => {
    const w = watch(['notes', ...target()])
    await expect.poll(() => w.err(), POLL).toMatch(/watching notes/)
    const id = await create('three')
    await expect.poll(() => w.lines().length, POLL).toBe(1)
    expect(w.lines()[0]).toMatch(new RegExp(`^\\d+ create #${id} \\{"title":"three"\\}$`))
    await w.stop()
    const bad = await svc(['db', 'watch', 'notes', '--table', 'nope', ...target()])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/table/)
    const missing = await svc(['db', 'watch', 'nothere', ...target()])
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toMatch(/no database/)
  })

  it('--data: the embedded backend sees what another process writes to the same data', async () => {
    const w = watch(['notes', '--json', ...dbTarget()])
    await expect.poll(() => w.err(), POLL).toMatch(/watching notes/)
    await create('through the server')
    await expect.poll(() => w.lines().map((l) => JSON.parse(l).data.data.title), POLL).toEqual(['through the server'])
    expect(await w.stop()).toBe(0)
  })
})
