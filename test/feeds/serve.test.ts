// `svc serve`'s graceful stop with live feeds open (the built CLI, as deployed): the streams end
// (their clients see the end and would reconnect elsewhere) and the process exits without waiting on them.
import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {createTestDatabase, pg, seedAdminToken} from '../helpers/pg.js'
import {changes, openFeed, urlTransport} from './feed-client.js'

const POLL = {timeout: 30_000, interval: 20}

describe(`svc serve with open feeds (${pg ? 'PostgreSQL' : 'SQLite'})`, () => {
  const dataDir = tempDir()
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined
  let server: ServeProcess | undefined
  afterAll(async () => {
    await server?.stop('SIGKILL')
    await database?.drop()
    rmSync(dataDir, {recursive: true, force: true})
  })

  it('ends every stream on SIGTERM and exits', async () => {
    database = pg ? await createTestDatabase() : undefined
    const token = await seedAdminToken(dataDir, database?.url)
    server = await svcServe(dataDir, database ? ['--database-url', database.url] : [])
    const headers = {authorization: `Bearer ${token}`, 'content-type': 'application/json'}
    const url = server.url
    const db = await (await fetch(`${url}/svc/dbs.json`, {method: 'POST', headers, body: JSON.stringify({db: {name: 'S', code: 's'}})})).json()
    const feeds = await Promise.all([0, 1, 2].map(() => openFeed(urlTransport(url), `/svc/dbs/${db.id}/changes`, headers)))
    expect(feeds.map((f) => f.status)).toEqual([200, 200, 200])
    const res = await fetch(`${url}/svc/dbs/${db.id}/records.json`, {method: 'POST', headers, body: JSON.stringify({record: {data: {a: 1}}})})
    expect(res.status).toBe(201)
    await expect.poll(() => feeds.map((f) => changes(f).length), POLL).toEqual([1, 1, 1])
    const exited = server.stop('SIGTERM')
    await expect.poll(() => feeds.map((f) => f.ended), POLL).toEqual([true, true, true])
    expect(await exited).toBe(0)
    server = undefined
  })
})
