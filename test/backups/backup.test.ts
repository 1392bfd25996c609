// Backups (issue 36, docs/backups.md): an archive made from a running store restores into a new
// data dir or an empty database of either store, and everything reads back through the API as it
// was (ETags included); a backup taken while writes go on holds exactly the writes before its
// snapshot; a damaged archive (truncated, edited, reordered) is refused and writes nothing; secrets
// travel only encrypted with a passphrase; a target holding data is refused without --force.
import {execFileSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync, gzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {SvcApp} from '../../src/http/app.js'
import {backup} from '../../src/services/backup/index.js'
import {openStoreAt} from '../../src/store/index.js'
import {svc} from '../helpers/cli.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {createWorld, tempDir, type World} from '../helpers/world.js'
import {appOver, call, targetFlags, type Target} from './helpers.js'

/** Fills an account with one of each resource through the API. */
async function seed(world: World) {
  const {admin, mallory} = world.users
  const app = world.app
  const ok = (r: {status: number; text: string}) => expect(r.status, r.text).toBeLessThan(300)
  ok(await call(app, admin.token, 'POST', '/svc/prompts.json', {prompt: {name: 'Greet', code: 'greet', content: 'Hello {{ who }} — ünïcode ✓'}}))
  const db = await call(app, admin.token, 'POST', '/svc/dbs.json', {db: {name: 'Books', code: 'books', schema: {fields: {title: 'string', pages: 'integer'}},
    public_methods: {list: true}}})
  ok(db)
  for (let i = 0; i < 25; i++) ok(await call(app, admin.token, 'POST', `/svc/dbs/${db.json.id}/records.json`, {record: {data: {title: `Book ${i} "quoted"`, pages: i * 10}}}))
  ok(await call(app, admin.token, 'POST', '/svc/apps.json', {app: {name: 'Page', url_code: 'page', app_engine: 'html', css_engine: 'none', source_code: '<h1>Hi</h1>', public: true}}))
  ok(await call(app, admin.token, 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_connector', code: 'weather', name: 'Weather', url: 'https://api.example.com',
    secret_token: 'sekret-token-0123456789', fields: {methods: [{name: 'now', http_method: 'GET', path: '/now'}]}}}))
  ok(await call(app, mallory.token, 'POST', '/svc/prompts.json', {prompt: {name: 'Theirs', code: 'theirs', content: 'other account'}}))
}

/** Everything the users of the seed can read, with the ETags of what has one. */
async function readAll(app: SvcApp, world: World) {
  const {admin, mallory} = world.users
  const out: Record<string, unknown> = {}
  for (const [who, token] of [['admin', admin.token], ['mallory', mallory.token]] as const) {
    for (const path of ['/svc/me.json', '/svc/prompts.json', '/svc/dbs.json', '/svc/apps.json', '/svc/resources.json', '/svc/users.json']) {
      const r = await call(app, token, 'GET', path)
      out[`${who} ${path}`] = [r.status, r.json]
    }
    const dbs = (await call(app, token, 'GET', '/svc/dbs.json')).json as {id: number}[]
    for (const db of dbs) {
      const one = await call(app, token, 'GET', `/svc/dbs/${db.id}.json`)
      out[`${who} db ${db.id}`] = [one.etag, one.json]
      out[`${who} records ${db.id}`] = (await call(app, token, 'GET', `/svc/dbs/${db.id}/records.json?limit=100`)).json
      out[`${who} search ${db.id}`] = (await call(app, token, 'GET', `/svc/dbs/${db.id}/search.json?q=${encodeURIComponent('ook 2')}&limit=100`)).json
    }
    for (const p of (await call(app, token, 'GET', '/svc/prompts.json')).json as {id: string}[]) {
      const one = await call(app, token, 'GET', `/svc/prompts/${p.id}.json`)
      out[`${who} prompt ${p.id}`] = [one.etag, one.json]
    }
    for (const a of (await call(app, token, 'GET', '/svc/apps.json')).json as {id: string}[]) {
      const one = await call(app, token, 'GET', `/svc/apps/${a.id}.json`)
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

describe('backups', () => {
  let world: World
  let before: Record<string, unknown>
  const files = tempDir('svc-backup-')
  const archive = join(files, 'all.svcbak')
  const drops: (() => Promise<void>)[] = []

  beforeAll(async () => {
    world = await createWorld()
    await seed(world)
    before = await readAll(world.app, world)
    expect((before['admin search 1'] as unknown[]).length).toBe(6) // Book 2 and Book 20-24: the search index must come back too
  })
  afterAll(async () => {
    await world.close()
    for (const drop of drops) await drop()
  })

  it('a backup restores into a new data dir and reads back as it was; verify says so', async () => {
    const made = await svc(['admin', 'backup', ...targetFlags(world), '--out', archive, '--json'])
    expect(made.code, made.stderr).toBe(0)
    expect(made.json).toMatchObject({store: world.databaseUrl ? 'pg' : 'sqlite', secrets: 'left out', tables: {db_records: 25, prompts: 2}})
    expect(existsSync(`${archive}.partial`)).toBe(false)
    const restored = tempDir()
    const r = await svc(['admin', 'restore', archive, '--data', restored, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({store: 'sqlite', rows: made.json.rows})
    // Indexes and triggers, dropped while the rows went in, are all back.
    const schemaOf = async (dir: string) => {
      const {default: Database} = await import('better-sqlite3')
      const db = new Database(join(dir, 'svc.sqlite'), {readonly: true})
      try {
        return db.prepare("SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') ORDER BY name").all()
      } finally {
        db.close()
      }
    }
    const fresh = tempDir()
    await (await openStoreAt({dataDir: fresh, sqlite: true})).close()
    expect(await schemaOf(restored)).toEqual(await schemaOf(fresh))
    const after = await readsOf({dataDir: restored}, world)
    // The connector's secret was left out: the only difference.
    expect((after['admin /svc/resources.json'] as any)[1][0].has_secret_token).toBe(false)
    ;(after['admin /svc/resources.json'] as any)[1][0].has_secret_token = true
    expect(after).toEqual(before)
    const v = await svc(['admin', 'backup', 'verify', archive, '--json'])
    expect(v.code, v.stderr).toBe(0)
    expect(v.json).toMatchObject({ok: true, rows: made.json.rows, sha256: made.json.sha256})
    // An archive compressed as one gzip stream (as svc wrote them before it compressed blocks apart) restores the same.
    const single = join(files, 'single-member.svcbak')
    writeFileSync(single, gzipSync(gunzipSync(readFileSync(archive))))
    const again = tempDir()
    expect((await svc(['admin', 'restore', single, '--data', again])).code).toBe(0)
    const readAgain = await readsOf({dataDir: again}, world)
    ;(readAgain['admin /svc/resources.json'] as any)[1][0].has_secret_token = true
    expect(readAgain).toEqual(before)
  })

  it.runIf(pg)('SQLite → PostgreSQL → SQLite reads back the same through the API', async () => {
    // A SQLite world's archive (this half's world is PostgreSQL: back it up to SQLite first).
    const sqliteDir = tempDir()
    expect((await svc(['admin', 'restore', archive, '--data', sqliteDir])).code).toBe(0)
    const fromSqlite = join(files, 'from-sqlite.svcbak')
    expect((await svc(['admin', 'backup', '--data', sqliteDir, '--out', fromSqlite])).code).toBe(0)
    const db = await createTestDatabase()
    drops.push(db.drop)
    // The template database is migrated and empty: a valid target.
    const r = await svc(['admin', 'restore', fromSqlite, '--database-url', db.url, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({store: 'pg', from_store: 'sqlite'})
    // Indexes, dropped while the rows went in, are all back.
    const indexesOf = async (url: string) => {
      const {default: pgLib} = await import('pg')
      const client = new pgLib.Client({connectionString: url})
      await client.connect()
      try {
        return (await client.query('SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname')).rows
      } finally {
        await client.end()
      }
    }
    const empty = await createTestDatabase()
    drops.push(empty.drop)
    expect(await indexesOf(db.url)).toEqual(await indexesOf(empty.url))
    const onPg = await readsOf({dataDir: tempDir(), databaseUrl: db.url}, world)
    const back = join(files, 'from-pg.svcbak')
    expect((await svc(['admin', 'backup', '--database-url', db.url, '--out', back])).code).toBe(0)
    const again = tempDir()
    expect((await svc(['admin', 'restore', back, '--data', again])).code).toBe(0)
    const onSqlite = await readsOf({dataDir: again}, world)
    const expected = structuredClone(before)
    ;(expected['admin /svc/resources.json'] as any)[1][0].has_secret_token = false
    expect(onPg).toEqual(expected)
    expect(onSqlite).toEqual(expected)
    // New rows after a restore take new ids on PostgreSQL (identity counters moved past the restored ones).
    const {app, close} = await appOver({dataDir: tempDir(), databaseUrl: db.url})
    const created = await call(app, world.users.admin.token, 'POST', '/svc/prompts.json', {prompt: {name: 'New', code: 'new', content: 'x'}})
    expect(created.status, created.text).toBe(201)
    await close()
  })

  // Read by one connection, and by three on one snapshot in ranges of 10 rows (PostgreSQL's parallel readers; on SQLite the same
  // reader), its text compressed as gzip members of 4 KB, three at once.
  it.each([
    ['one reader', 1, undefined, undefined],
    ['three readers in ranges of 10 rows, 4 KB members', 3, 10, 4096],
  ])('a backup taken while records are written holds exactly the writes acknowledged before its snapshot (%s)', async (_label, parallel, rangeRows, blockBytes) => {
    const db = (await call(world.app, world.users.admin.token, 'GET', '/svc/dbs/books.json')).json
    const acknowledged: number[] = []
    let writing = true
    const writer = (async () => {
      for (let i = 0; writing && i < 400; i++) {
        const r = await call(world.app, world.users.admin.token, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {title: `during ${parallel} ${i}`, pages: i}}})
        expect(r.status, r.text).toBe(201)
        acknowledged.push(r.json.id)
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 5))
    const startedWith = acknowledged.length
    const file = join(files, `during-${parallel}.svcbak`)
    await backup(world, file, {parallel, rangeRows, blockBytes})
    // (Small members: a second gzip member's header follows the first.)
    if (blockBytes) expect(readFileSync(file).indexOf(Buffer.from([0x1f, 0x8b, 8]), 10)).toBeGreaterThan(0)
    const endedWith = acknowledged.length
    writing = false
    await writer
    const restored = tempDir()
    expect((await svc(['admin', 'restore', file, '--data', restored])).code).toBe(0)
    const {app, close} = await appOver({dataDir: restored})
    const ids = new Set<number>()
    for (let offset = 0; ; offset += 100) {
      const page = (await call(app, world.users.admin.token, 'GET', `/svc/dbs/${db.id}/records.json?limit=100&offset=${offset}`)).json as {id: number; data: {title: string}}[]
      for (const rec of page) if (rec.data.title.startsWith(`during ${parallel} `)) ids.add(rec.id)
      if (page.length < 100) break
    }
    await close()
    // A state that existed: a prefix of the writes, holding every one acknowledged before the backup began.
    const k = ids.size
    expect(k).toBeGreaterThanOrEqual(startedWith)
    expect(k).toBeLessThanOrEqual(endedWith)
    expect([...ids].sort((a, b) => a - b)).toEqual(acknowledged.slice(0, k).sort((a, b) => a - b))
  })

  it('a truncated, edited or reordered archive is refused by restore and verify, and writes nothing', async () => {
    const lines = gunzipSync(readFileSync(archive)).toString('utf8').split('\n')
    const recordLine = lines.findIndex((l) => l.includes('Book 3 '))
    expect(recordLine).toBeGreaterThan(0)
    const edited = [...lines]
    edited[recordLine] = edited[recordLine]!.replace('Book 3 ', 'Book 9 ')
    const reordered = [...lines]
    ;[reordered[recordLine], reordered[recordLine + 1]] = [reordered[recordLine + 1]!, reordered[recordLine]!]
    const whole = readFileSync(archive)
    const cases: [string, Buffer, RegExp][] = [
      ['truncated', whole.subarray(0, Math.floor(whole.length * 0.6)), /truncated|damaged/],
      ['cut at a line', gzipSync(lines.slice(0, recordLine + 1).join('\n') + '\n'), /truncated/],
      ['edited', gzipSync(edited.join('\n')), /checksum/],
      ['reordered', gzipSync(reordered.join('\n')), /checksum/],
      ['not an archive', Buffer.from('hello'), /not a gzip|damaged/],
    ]
    for (const [name, bytes, message] of cases) {
      const file = join(files, `${name}.svcbak`)
      writeFileSync(file, bytes)
      const dir = join(tempDir(), 'target')
      const r = await svc(['admin', 'restore', file, '--data', dir])
      expect(r.code, name).not.toBe(0)
      expect(r.stderr, name).toMatch(message)
      expect(r.stderr, name).toContain('nothing was written')
      expect(existsSync(join(dir, 'svc.sqlite')), name).toBe(false)
      const v = await svc(['admin', 'backup', 'verify', file])
      expect(v.code, name).not.toBe(0)
      expect(v.stderr, name).toMatch(message)
    }
  })

  it('secrets travel only encrypted with a passphrase; a wrong one is refused before anything is written', async () => {
    const file = join(files, 'secrets.svcbak')
    const env = {SVC_BACKUP_PASSPHRASE: 'correct horse battery staple'}
    const made = await svc(['admin', 'backup', ...targetFlags(world), '--out', file, '--json'], {env})
    expect(made.code, made.stderr).toBe(0)
    expect(made.json.secrets).toBe('encrypted')
    const text = gunzipSync(readFileSync(file)).toString('utf8')
    expect(text).not.toContain('sekret-token-0123456789')
    expect(gunzipSync(readFileSync(archive)).toString('utf8')).not.toContain('sekret-token-0123456789')
    const wrongDir = join(tempDir(), 'wrong')
    const wrong = await svc(['admin', 'restore', file, '--data', wrongDir], {env: {SVC_BACKUP_PASSPHRASE: 'nope'}})
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain('wrong passphrase')
    expect(existsSync(join(wrongDir, 'svc.sqlite'))).toBe(false)
    const dir = tempDir()
    const r = await svc(['admin', 'restore', file, '--data', dir, '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.secrets).toBe('restored')
    const {app, store, close} = await appOver({dataDir: dir})
    const resources = (await call(app, world.users.admin.token, 'GET', '/svc/resources.json')).json
    expect(resources[0]).toMatchObject({code: 'weather', has_secret_token: true})
    expect(await store.flows.resourceSecret(world.accounts.acme!, resources[0].id)).toBe('sekret-token-0123456789')
    await close()
  })

  it('a target that holds data is refused without --force; --force without a terminal needs --yes', async () => {
    const dir = tempDir()
    expect((await svc(['admin', 'restore', archive, '--data', dir])).code).toBe(0)
    const again = await svc(['admin', 'restore', archive, '--data', dir])
    expect(again.code).not.toBe(0)
    expect(again.stderr).toContain('already holds data')
    const noYes = await svc(['admin', 'restore', archive, '--data', dir, '--force'])
    expect(noYes.code).not.toBe(0)
    expect(noYes.stderr).toContain('--yes')
    const forced = await svc(['admin', 'restore', archive, '--data', dir, '--force', '--yes', '--json'])
    expect(forced.code, forced.stderr).toBe(0)
    const reads = await readsOf({dataDir: dir}, world)
    expect(reads['admin /svc/prompts.json']).toEqual(before['admin /svc/prompts.json'])
  })
})
