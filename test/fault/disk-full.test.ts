// A full disk, simulated by a tiny tmpfs under the data dir (needs mount rights: root in CI; the
// test is skipped where mounting is not allowed). A write that does not fit gets a clear 507,
// nothing half-written, reads keep working, and writes work again once there is space.
import Database from 'better-sqlite3'
import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {pg} from '../helpers/pg.js'

// Store-specific: SQLite on a full tmpfs, skipped in the PostgreSQL half.

const mountPoint = mkdtempSync(join(tmpdir(), 'svc-tinyfs-'))
const mount = (...options: string[]) => spawnSync('mount', ['-t', 'tmpfs', '-o', options.join(','), 'tmpfs', mountPoint], {stdio: 'ignore'}).status === 0
const mounted = process.platform === 'linux' && mount('size=2m')

let server: ServeProcess | undefined
afterAll(async () => {
  await server?.stop()
  if (mounted) spawnSync('umount', [mountPoint], {stdio: 'ignore'})
  rmSync(mountPoint, {recursive: true, force: true})
})

describe.runIf(mounted && !pg)('a full disk', () => {
  it('answers 507 with a clear error, keeps every acknowledged record and recovers when space returns', async () => {
    const data = join(mountPoint, 'data')
    mkdirSync(data)
    const admin = (await svc(['admin', 'user', 'add', 'root', '--role', 'admin', '--data', data, '--json'])).json
    const headers = {authorization: `Bearer ${admin.token}`, 'content-type': 'application/json'}
    server = await svcServe(data, ['--quiet'])
    const url = server.url
    const db = await (await fetch(`${url}/svc/dbs.json`, {method: 'POST', headers, body: JSON.stringify({db: {name: 'Blobs', code: 'blobs'}})})).json()
    const records = `${url}/svc/dbs/${db.id}/records.json`

    const acknowledged: number[] = []
    let failure: {status: number; body: string} | undefined
    for (let i = 0; i < 200 && !failure; i++) {
      const res = await fetch(records, {method: 'POST', headers, body: JSON.stringify({record: {data: {i, blob: `${i} `.repeat(20_000)}}})})
      if (res.status === 201) acknowledged.push((await res.json()).id)
      else failure = {status: res.status, body: await res.text()}
    }
    expect(failure, 'the disk never filled up').toBeDefined()
    expect(failure!.status).toBe(507)
    expect(JSON.parse(failure!.body).error).toMatch(/storage full.*nothing was written/)
    expect(failure!.body).not.toMatch(/at .*\.js|SqliteError/)
    expect(acknowledged.length).toBeGreaterThan(0)

    // Reads still work and show exactly the acknowledged records.
    const listed = await fetch(`${records}?limit=100`, {headers})
    expect(listed.status).toBe(200)
    expect((await listed.json()).map((r: {id: number}) => r.id).sort((a: number, b: number) => a - b)).toEqual(acknowledged)

    // More space: the next write is acknowledged and the file is intact.
    expect(spawnSync('mount', ['-o', 'remount,size=16m', mountPoint], {stdio: 'ignore'}).status).toBe(0)
    const after = await fetch(records, {method: 'POST', headers, body: JSON.stringify({record: {data: {i: -1}}})})
    expect(after.status).toBe(201)
    await server.stop()
    server = undefined
    const file = new Database(join(data, 'svc.sqlite'), {readonly: true})
    expect(file.pragma('integrity_check', {simple: true})).toBe('ok')
    file.close()
  }, 120_000)
})
