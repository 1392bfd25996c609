// Point-in-time restore (issue 36, docs/backups.md "Point in time"): `svc admin restore FILE --at T`
// restores an archive taken after T rolled back to T with the journal it carries: every write at or
// before T is there, none after (prompts, apps, connectors, dbs, records; a db deleted after T comes
// back with its records, its code freed and taken meanwhile by a new db), and the API reads exactly
// what it read at T, history included. A T the archive cannot answer is refused naming the range it
// can, and nothing is written.
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync, gzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {SvcApp} from '../../src/http/app.js'
import {SETTLE_MS} from '../../src/services/backup/point-in-time.js'
import {svc} from '../helpers/cli.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {createWorld, tempDir, type World} from '../helpers/world.js'
import {appOver, call, targetFlags, type Target} from './helpers.js'

const ok = (r: {status: number; text: string}) => {
  expect(r.status, r.text).toBeLessThan(300)
  return r
}

/** Everything the users can read that the journal describes, with ETags, and the history itself. */
async function readAll(app: SvcApp, world: World) {
  const out: Record<string, unknown> = {}
  for (const [who, user] of [['admin', world.users.admin], ['mallory', world.users.mallory]] as const) {
    const get = (path: string) => call(app, user.token, 'GET', path)
    for (const path of ['/svc/prompts.json', '/svc/dbs.json', '/svc/apps.json', '/svc/resources.json', '/svc/history.json?limit=100']) {
      const r = await get(path)
      out[`${who} ${path}`] = [r.status, r.json]
    }
    for (const db of (await get('/svc/dbs.json')).json as {id: number}[]) {
      const one = await get(`/svc/dbs/${db.id}.json`)
      out[`${who} db ${db.id}`] = [one.etag, one.json]
      out[`${who} records ${db.id}`] = (await get(`/svc/dbs/${db.id}/records.json?limit=100`)).json
    }
    for (const p of (await get('/svc/prompts.json')).json as {id: string}[]) {
      const one = await get(`/svc/prompts/${p.id}.json`)
      out[`${who} prompt ${p.id}`] = [one.etag, one.json]
    }
    for (const a of (await get('/svc/apps.json')).json as {id: string}[]) {
      const one = await get(`/svc/apps/${a.id}.json`)
      out[`${who} app ${a.id}`] = [one.etag, one.json]
    }
  }
  return out
}

async function readsOf(target: Target, world: World) {
  const {app, close} = await appOver(target)
  try {
    return await readAll(app, world)
  } finally {
    await close()
  }
}

/** Waits until the clock is past `time` (ISO) by `ms`. */
async function clockPast(time: string, ms = 1) {
  while (Date.now() < Date.parse(time) + ms) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('point-in-time restore', () => {
  let world: World
  let atT: Record<string, unknown>
  let T: string
  const files = tempDir('svc-pitr-')
  const archive = join(files, 'after.svcbak')
  const drops: (() => Promise<void>)[] = []

  beforeAll(async () => {
    world = await createWorld()
    const {admin, mallory} = world.users
    const api = (method: string, path: string, body?: unknown, token = admin.token) => call(world.app, token, method, path, body).then(ok)
    // Before T.
    const kept = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Greet', code: 'greet', content: 'v1'}})).json
    await api('PATCH', `/svc/prompts/${kept.id}.json`, {prompt: {content: 'v2 — at T\n\ta tab, a \\ backslash, \r\n'}})
    const doomed = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Doomed', code: 'doomed', content: 'deleted after T'}})).json
    const books = (await api('POST', '/svc/dbs.json', {db: {name: 'Books', code: 'books', schema: {fields: {title: 'string', pages: 'integer'}}}})).json
    const bookIds: number[] = []
    for (let i = 0; i < 5; i++) bookIds.push((await api('POST', `/svc/dbs/${books.id}/records.json`, {record: {data: {title: `Book ${i}`, pages: i}}})).json.id)
    await api('PATCH', `/svc/dbs/${books.id}/records/${bookIds[0]}.json`, {record: {data: {title: 'Book 0, revised before T', pages: 100}}})
    const old = (await api('POST', '/svc/dbs.json', {db: {name: 'Old', code: 'old'}})).json
    for (let i = 0; i < 3; i++) await api('POST', `/svc/dbs/${old.id}/records.json`, {record: {data: {n: i, s: `old ${i}`}}})
    await api('POST', '/svc/prompts.json', {prompt: {name: 'Theirs', code: 'theirs', content: 'other account'}}, mallory.token)
    const page = (await api('POST', '/svc/apps.json', {app: {name: 'Page', url_code: 'page', app_engine: 'html', css_engine: 'none', source_code: '<h1>T</h1>'}})).json
    const weather = (await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_connector', code: 'weather', name: 'Weather', url: 'https://api.example.com',
      fields: {methods: [{name: 'now', http_method: 'GET', path: '/now'}]}}})).json
    const early = (await api('POST', '/svc/users.json', {user: {login: 'early'}})).json
    // T: the time of the last write before it, exactly (a write at T is in the state at T).
    T = ((await api('GET', '/svc/history.json?limit=1')).json as {at: string}[])[0]!.at
    atT = await readAll(world.app, world)
    await clockPast(T)
    // After T: every kind changed, created, deleted.
    await api('PATCH', `/svc/prompts/${kept.id}.json`, {prompt: {content: 'v3 — after T', name: 'Greet later'}})
    await api('DELETE', `/svc/prompts/${doomed.id}.json`)
    await api('POST', '/svc/prompts.json', {prompt: {name: 'Newer', code: 'newer', content: 'created after T'}})
    await api('PATCH', `/svc/dbs/${books.id}/records/${bookIds[0]}.json`, {record: {data: {title: 'Book 0, after T', pages: 1}}})
    await api('DELETE', `/svc/dbs/${books.id}/records/${bookIds[1]}.json`)
    await api('POST', `/svc/dbs/${books.id}/records.json`, {record: {data: {title: 'Book after T', pages: 9}}})
    await api('PATCH', `/svc/dbs/${books.id}.json`, {db: {name: 'Books renamed'}})
    await api('DELETE', `/svc/dbs/${old.id}.json`)
    // The deleted db's code, taken by a db made after T: it goes, the old one comes back under its code.
    const squatter = (await api('POST', '/svc/dbs.json', {db: {name: 'Squatter', code: 'old'}})).json
    await api('POST', `/svc/dbs/${squatter.id}/records.json`, {record: {data: {n: 99}}})
    await api('PATCH', `/svc/apps/${page.id}.json`, {app: {source_code: '<h1>after T</h1>'}})
    await api('POST', '/svc/apps.json', {app: {name: 'Later', url_code: 'later', app_engine: 'html', css_engine: 'none', source_code: '<p>later</p>'}})
    await api('PATCH', `/svc/resources/${weather.id}.json`, {resource: {name: 'Weather after T'}})
    await api('PATCH', `/svc/prompts/${(await api('GET', '/svc/prompts.json', undefined, mallory.token)).json[0].id}.json`, {prompt: {content: 'theirs after T'}}, mallory.token)
    // A user and their token added after T: events in the journal (no token hash kept); the restore
    // leaves their entries after T out and keeps the users' tables as the archive holds them.
    await api('POST', '/svc/users.json', {user: {login: 'later'}})
    await api('POST', `/svc/users/${early.user.id}/revoke_tokens.json`)
    // The archive answers up to a moment before it is made.
    const last = ((await api('GET', '/svc/history.json?limit=1')).json as {at: string}[])[0]!.at
    await clockPast(last, SETTLE_MS + 50)
    const made = await svc(['admin', 'backup', ...targetFlags(world), '--out', archive])
    expect(made.code, made.stderr).toBe(0)
  })
  afterAll(async () => {
    await world.close()
    for (const drop of drops) await drop()
  })

  it('restores into a new data dir exactly the state at T: every write at or before T, none after', async () => {
    const dir = tempDir()
    const r = await svc(['admin', 'restore', archive, '--data', dir, '--at', T, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.point_in_time).toMatchObject({at: T, changed: {prompt: {version: 3, absent: 1}, record: {version: 2, absent: 2}, db: {version: 2, absent: 1},
      app: {version: 1, absent: 1}, resource: {version: 1, absent: 0}}})
    expect(await readsOf({dataDir: dir}, world)).toEqual(atT)
    // Without --at the same archive restores the state it was made at (the writes after T are in it).
    const whole = tempDir()
    expect((await svc(['admin', 'restore', archive, '--data', whole])).code).toBe(0)
    expect(await readsOf({dataDir: whole}, world)).not.toEqual(atT)
  })

  it.runIf(pg)('restores into an empty PostgreSQL database the same state at T', async () => {
    const db = await createTestDatabase()
    drops.push(db.drop)
    const r = await svc(['admin', 'restore', archive, '--database-url', db.url, '--at', T])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`Restored the state at ${T}`)
    expect(await readsOf({dataDir: tempDir(), databaseUrl: db.url}, world)).toEqual(atT)
    // The entries kept their positions (bookmarks); a write after the restore takes the next one.
    const {app, close} = await appOver({dataDir: tempDir(), databaseUrl: db.url})
    try {
      const newest = (atT['admin /svc/history.json?limit=100'] as [number, {bookmark: string}[]])[1][0]!.bookmark
      ok(await call(app, world.users.admin.token, 'POST', '/svc/prompts.json', {prompt: {name: 'After', code: 'after-restore', content: 'x'}}))
      const [entry] = (await call(app, world.users.admin.token, 'GET', '/svc/history.json?limit=1')).json as {bookmark: string; summary: string}[]
      expect(entry!.summary).toContain('after-restore')
      expect(entry!.bookmark > newest).toBe(true)
    } finally {
      await close()
    }
  })

  it('refuses a time the archive cannot answer, naming the range it can, and writes nothing', async () => {
    const dir = join(tempDir(), 'new')
    const later = await svc(['admin', 'restore', archive, '--data', dir, '--at', new Date().toISOString()])
    expect(later.code).not.toBe(0)
    expect(later.stderr).toMatch(/is after the archive was made .*this archive answers times from \S+ to \S+; nothing was written/)
    const earlier = await svc(['admin', 'restore', archive, '--data', dir, '--at', '2020-01-01T00:00:00Z'])
    expect(earlier.code).not.toBe(0)
    expect(earlier.stderr).toMatch(/is before what the archive's journal describes: this archive answers times from \S+ to \S+; nothing was written/)
    const bad = await svc(['admin', 'restore', archive, '--data', dir, '--at', 'yesterday-ish'])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('--at: not a time')
    // An edited archive (a version in its journal changed) is refused at its checksum, before the commit.
    const lines = gunzipSync(readFileSync(archive)).toString('utf8').split('\n')
    const i = lines.findIndex((l) => l.includes('v2 — at T'))
    expect(i).toBeGreaterThan(0)
    lines[i] = lines[i]!.replace('v2 — at T', 'v2 — edited')
    const edited = join(files, 'edited.svcbak')
    writeFileSync(edited, gzipSync(lines.join('\n')))
    const tampered = await svc(['admin', 'restore', edited, '--data', dir, '--at', T])
    expect(tampered.code).not.toBe(0)
    expect(tampered.stderr).toContain('the archive is damaged: its checksum does not match')
    expect(existsSync(join(dir, 'svc.sqlite'))).toBe(false)
    if (world.databaseUrl) {
      const db = await createTestDatabase()
      drops.push(db.drop)
      const refused = await svc(['admin', 'restore', archive, '--database-url', db.url, '--at', '2020-01-01T00:00:00Z'])
      expect(refused.code).not.toBe(0)
      // Still empty: a restore without --force is accepted.
      expect((await svc(['admin', 'restore', archive, '--database-url', db.url])).code).toBe(0)
    }
  })
})
