import {readFileSync} from 'node:fs'
import Database from 'better-sqlite3'
import {afterEach, expect, it} from 'vitest'
import {openStore} from '../../src/store/index.js'
import {dataFile} from '../../src/store/sqlite/connection.js'
import {tempDir} from '../helpers/world.js'
import {pg} from '../helpers/pg.js'

// Store-specific: the SQLite file (WAL mode, migrations, bytes on disk), skipped in the PostgreSQL half.

const opened: {close(): void}[] = []
afterEach(() => opened.splice(0).forEach((s) => s.close()))

it.skipIf(pg)('opens in WAL mode with a busy timeout and records every migration once', () => {
  const dir = tempDir()
  opened.push(openStore(dir))
  opened.push(openStore(dir)) // a second process-like opener migrates nothing twice
  const db = new Database(dataFile(dir))
  opened.push(db)
  expect(db.pragma('journal_mode', {simple: true})).toBe('wal')
  const ids = (db.prepare('SELECT id FROM schema_migrations').all() as {id: number}[]).map((r) => r.id)
  expect(ids).toContain(1)
  expect(new Set(ids).size).toBe(ids.length)
})

it.skipIf(pg)('stores tokens hashed: the raw token is nowhere in the file', async () => {
  const dir = tempDir()
  const store = openStore(dir)
  const account = await store.accounts.createAccount('acme')
  const user = await store.accounts.addUser({accountId: account.id, login: 'alice'})
  const token = await store.accounts.createToken(user.id)
  expect(token.length).toBeGreaterThanOrEqual(43) // 32 random bytes, base64url
  expect((await store.accounts.authenticate(token))?.login).toBe('alice')
  expect(await store.accounts.authenticate(token + 'x')).toBeNull()
  store.close()
  expect(readFileSync(dataFile(dir)).includes(Buffer.from(token))).toBe(false)
})

it('users get teams and a department by name; a login is unique per account only', async () => {
  const store = openStore(tempDir())
  opened.push(store)
  const a = await store.accounts.createAccount('a')
  const b = await store.accounts.createAccount('b')
  const u = await store.accounts.addUser({accountId: a.id, login: 'bob', teams: ['red', 'blue'], department: 'north'})
  expect(u.team_names).toEqual(['red', 'blue'])
  expect(u.department_names).toEqual(['north'])
  await expect(store.accounts.addUser({accountId: a.id, login: 'bob'})).rejects.toMatchObject({status: 422, details: {login: ['has already been taken']}})
  const other = await store.accounts.addUser({accountId: b.id, login: 'bob', teams: ['red']})
  expect(other.team_ids[0]).not.toBe(u.team_ids[0])
  expect(await store.accounts.getUser(b.id, u.id)).toBeNull()
})

it('expired session tokens do not authenticate', async () => {
  const store = openStore(tempDir())
  opened.push(store)
  const a = await store.accounts.createAccount('a')
  const u = await store.accounts.addUser({accountId: a.id, login: 'x'})
  const session = await store.accounts.createToken(u.id, 'session', -1)
  expect(await store.accounts.authenticate(session, 'session')).toBeNull()
})
