// Scheduled backups of `svc serve` (docs/backups.md): an archive at start when the last one in the
// dir is overdue, the oldest beyond --backup-keep removed, the age in GET /svc/health, a failing
// backup logged loudly and reported as failing; a bad period is refused at start.
import {readdirSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

const servers: ServeProcess[] = []
const drops: (() => Promise<void>)[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  for (const drop of drops) await drop()
})

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await read()
    if (ok(v)) return v
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** A data dir, and on the PostgreSQL half a database of its own. */
async function storeFlags(): Promise<{data: string; extra: string[]}> {
  const data = tempDir()
  if (!pg) return {data, extra: []}
  const db = await createTestDatabase()
  drops.push(db.drop)
  return {data, extra: ['--database-url', db.url]}
}

it('an overdue backup is made at start, the oldest beyond --backup-keep removed, its age in /svc/health', async () => {
  const {data, extra} = await storeFlags()
  expect((await svc(['admin', 'account', 'create', 'acme', '--data', data, ...extra])).code).toBe(0)
  const dir = tempDir()
  const old = ['svc-20200101T000000Z.svcbak', 'svc-20200102T000000Z.svcbak', 'svc-20200103T000000Z.svcbak']
  for (const name of old) {
    writeFileSync(join(dir, name), 'old')
    utimesSync(join(dir, name), new Date('2020-01-03'), new Date('2020-01-03'))
  }
  writeFileSync(join(dir, 'notes.txt'), 'not an archive: never removed')
  const server = await svcServe(data, [...extra, '--backup-dir', dir, '--backup-every', '1d', '--backup-keep', '2'])
  servers.push(server)
  const health = await until(async () => (await fetch(`${server.url}/svc/health`)).json(), (h: any) => h.backup?.last_ok_at !== '2020-01-03T00:00:00.000Z' && h.backup?.age_seconds !== null && h.backup.age_seconds < 3600, 'a fresh backup')
  expect(health).toMatchObject({status: 'ok', store: pg ? 'pg' : 'sqlite', backup: {every_seconds: 86400, failing: false}})
  const files = await until(async () => readdirSync(dir).sort(), (f) => f.length === 3, 'pruning')
  expect(files).toEqual(['notes.txt', 'svc-20200103T000000Z.svcbak', expect.stringMatching(/^svc-\d{8}T\d{6}Z\.svcbak$/)])
  const fresh = files.find((f) => !old.includes(f) && f.endsWith('.svcbak'))!
  const v = await svc(['admin', 'backup', 'verify', join(dir, fresh), '--json'])
  expect(v.code, v.stderr).toBe(0)
  expect(v.json.tables.accounts).toBe(1)
  expect(server.output()).toContain('Backup written')
})

it('a backup that cannot be written is logged loudly and /svc/health says failing; without --backup-dir backup is null', async () => {
  const {data, extra} = await storeFlags()
  const blocker = join(tempDir(), 'a-file')
  writeFileSync(blocker, 'x')
  const server = await svcServe(data, [...extra, '--backup-dir', join(blocker, 'backups')])
  servers.push(server)
  const health = await until(async () => (await fetch(`${server.url}/svc/health`)).json(), (h: any) => h.backup?.failing === true, 'a failed backup')
  expect(health.backup.last_ok_at).toBeNull()
  expect(server.output()).toContain('BACKUP FAILED')
  const plain = await svcServe((await storeFlags()).data, extra)
  servers.push(plain)
  expect(await (await fetch(`${plain.url}/svc/health`)).json()).toMatchObject({status: 'ok', backup: null})
})

it('a period under a minute or not a duration is refused at start', async () => {
  for (const every of ['10s', 'often']) {
    const r = await svc(['serve', '--port', '0', '--data', tempDir(), '--backup-dir', tempDir(), '--backup-every', every], {process: true, timeoutMs: 20_000})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--backup-every')
  }
})
