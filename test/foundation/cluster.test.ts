// What N instances over one database agree on (ClusterRepo): a run owner's liveness, the upkeep
// leader, shared rate limits and budgets. PostgreSQL: two clusters over one database stand for two instances.
import {randomBytes} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ClusterRepo} from '../../src/store/cluster/types.js'
import {sqliteCluster} from '../../src/store/sqlite/cluster.js'
import {adminQuery, databaseUrl, endPool, pg} from '../helpers/pg.js'

describe('SQLite (one process)', () => {
  it('names runs host:pid, leads, and tells a dead pid from a live one', async () => {
    const cluster = sqliteCluster()
    expect(cluster.runner).toMatch(/^.+:\d+$/)
    expect(await cluster.lead()).toBe(true)
    const host = cluster.runner.slice(0, cluster.runner.lastIndexOf(':'))
    expect(await cluster.instanceAlive(`${host}:${process.ppid}`)).toBe(true)
    expect(await cluster.instanceAlive(`${host}:999999999`)).toBe(false)
    expect(await cluster.instanceAlive('another-host:1')).toBe(true) // not knowable: never reaped
  })

  it('token bucket and fixed window in memory', async () => {
    const cluster = sqliteCluster()
    expect(await cluster.takeToken('b', 'ip', 2, 1)).toBe(0)
    expect(await cluster.takeToken('b', 'ip', 2, 1)).toBe(0)
    expect(await cluster.takeToken('b', 'ip', 2, 1)).toBeGreaterThanOrEqual(1)
    expect(await cluster.takeToken('b', 'other', 2, 1)).toBe(0)
    expect([await cluster.countHit('w', 'ip', 60), await cluster.countHit('w', 'ip', 60), await cluster.countHit('w', 'x', 60)]).toEqual([1, 2, 1])
  })

  it('a budget per window charges only what fits', async () => {
    const cluster = sqliteCluster()
    expect(await cluster.chargeWithin('bytes', 'ip', 600, 1000, 60)).toBe(true)
    expect(await cluster.chargeWithin('bytes', 'ip', 600, 1000, 60)).toBe(false) // 1200 > 1000: nothing charged
    expect(await cluster.chargeWithin('bytes', 'ip', 400, 1000, 60)).toBe(true) // 1000 fits exactly
    expect(await cluster.chargeWithin('bytes', 'other', 1000, 1000, 60)).toBe(true)
    expect(await cluster.chargeWithin('bytes', 'big', 1001, 1000, 60)).toBe(false)
  })

  it('budgets that may run into debt: a hit passes while its bucket holds anything, then pays what it cost', async () => {
    const cluster = sqliteCluster()
    const hit = {bucket: 'read', key: 'ip', capacity: 100, perMinute: 60} // 1 a second
    expect(await cluster.budgetWaits([hit])).toEqual([0]) // a new bucket is full
    await cluster.spendBudgets([hit], 130) // a read that cost more than was left: 30 in debt
    const [wait] = await cluster.budgetWaits([hit, {...hit, key: 'other'}])
    expect(wait).toBeGreaterThanOrEqual(29)
    expect(wait).toBeLessThanOrEqual(31)
    expect((await cluster.budgetWaits([{...hit, key: 'other'}]))[0]).toBe(0)
  })
})

describe.runIf(pg)('PostgreSQL (instances over one database)', () => {
  const name = `svc_cluster_${randomBytes(4).toString('hex')}`
  const opened: {pool: import('pg').Pool; cluster: ClusterRepo}[] = []

  const open = async () => {
    const {default: pgLib} = await import('pg')
    const {openPgCluster} = await import('../../src/store/pg/cluster.js')
    const pool = new pgLib.Pool({connectionString: databaseUrl(name), max: 3})
    const cluster = await openPgCluster({pool, connectionString: databaseUrl(name)})
    opened.push({pool, cluster})
    return cluster
  }

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE ${name}`)
  })
  afterAll(async () => {
    for (const o of opened) {
      await o.cluster.close()
      await endPool(o.pool)
    }
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })

  it('an instance is alive while its session lives, whatever the host; one leader, taken over when it goes', async () => {
    const [a, b] = await Promise.all([open(), open()])
    expect(a.runner).toMatch(/^pg:\d+$/)
    expect(a.runner).not.toBe(b.runner)
    expect(await b.instanceAlive(a.runner)).toBe(true)
    expect(await a.instanceAlive(b.runner)).toBe(true)
    expect(await a.instanceAlive('some-host:123')).toBe(false)
    expect(await a.instanceAlive('pg:12345')).toBe(false)

    const leaders = [await a.lead(), await b.lead()]
    expect(leaders.filter(Boolean)).toHaveLength(1)
    const [leader, follower] = leaders[0] ? [a, b] : [b, a]
    expect(await leader.lead()).toBe(true) // kept
    const gone = leader.runner
    await leader.close()
    expect(await follower.instanceAlive(gone)).toBe(false)
    expect(await follower.lead()).toBe(true)
  })

  it('rate limits count across instances', async () => {
    const [a, b] = await Promise.all([open(), open()])
    expect(await a.takeToken('t', 'ip', 3, 1)).toBe(0)
    expect(await b.takeToken('t', 'ip', 3, 1)).toBe(0)
    expect(await a.takeToken('t', 'ip', 3, 1)).toBe(0)
    const wait = await b.takeToken('t', 'ip', 3, 1)
    expect(wait).toBeGreaterThanOrEqual(50) // a token a minute: most of a minute to wait
    expect(wait).toBeLessThanOrEqual(60)
    expect(await a.takeToken('t', 'other', 3, 1)).toBe(0)
    expect(await a.countHit('w', 'ip', 60)).toBe(1)
    expect(await b.countHit('w', 'ip', 60)).toBe(2)
    await new Promise((r) => setTimeout(r, 10)) // the window of 1 ms below has elapsed however fast the machine is
    expect(await b.countHit('w', 'ip', 0.001)).toBe(1) // window elapsed: a new one
    await a.expire()
    expect(await b.countHit('w', 'ip', 60)).toBe(2) // recent rows are kept
  })

  it('a budget per window is one budget across instances, charging only what fits', async () => {
    const [a, b] = await Promise.all([open(), open()])
    expect(await a.chargeWithin('bytes', 'ip', 600, 1000, 60)).toBe(true)
    expect(await b.chargeWithin('bytes', 'ip', 600, 1000, 60)).toBe(false) // a's 600 counts: nothing charged
    expect(await b.chargeWithin('bytes', 'ip', 400, 1000, 60)).toBe(true) // 1000 fits exactly
    expect(await a.chargeWithin('bytes', 'ip', 1, 1000, 60)).toBe(false)
    expect(await a.chargeWithin('bytes', 'big', 1001, 1000, 60)).toBe(false)
    expect(await a.chargeWithin('bytes', 'big', 1000, 1000, 60)).toBe(true) // the refused one charged nothing
    await new Promise((r) => setTimeout(r, 10)) // the window of 1 ms below has elapsed however fast the machine is
    expect(await b.chargeWithin('bytes', 'ip', 900, 1000, 0.001)).toBe(true) // window elapsed: a new one
  })

  it('a budget that may run into debt is one budget across instances', async () => {
    const [a, b] = await Promise.all([open(), open()])
    const hit = {bucket: 'read', key: 'ip', capacity: 100, perMinute: 60}
    const other = {...hit, bucket: 'read-db', key: '7'}
    expect(await b.budgetWaits([hit, other])).toEqual([0, 0])
    // The bucket refills 1 a second meanwhile: the lower bounds give back the whole seconds the
    // statements took (a loaded machine can take seconds), never more.
    const refilledSince = (from: number) => Math.floor((Date.now() - from) / 1000)
    const first = Date.now()
    await a.spendBudgets([hit, other], 60)
    expect(await b.budgetWaits([hit, other])).toEqual([0, 0]) // 40 left in each
    await b.spendBudgets([hit], 70) // 30 in debt
    const waits = await a.budgetWaits([hit, other])
    expect(waits[0]).toBeGreaterThanOrEqual(29 - refilledSince(first))
    expect(waits[0]).toBeLessThanOrEqual(31)
    expect(waits[1]).toBe(0)
    // Both instances charging a new bucket at once: both charges land.
    const fresh = {...hit, key: 'fresh'}
    const charged = Date.now()
    await Promise.all([a.spendBudgets([fresh], 60), b.spendBudgets([fresh], 60)])
    expect((await a.budgetWaits([fresh]))[0]).toBeGreaterThanOrEqual(19 - refilledSince(charged))
  })

  it('the session comes back after the database drops it, and takes its key again', async () => {
    const a = await open()
    const b = await open()
    const runner = a.runner
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1::oid AND granted`, [runner.slice(3)])
    let alive = false
    for (let i = 0; i < 600 && !alive; i++) { // up to a minute: a loaded machine
      await new Promise((r) => setTimeout(r, 100))
      alive = await b.instanceAlive(a.runner)
    }
    expect(alive).toBe(true)
    expect(a.runner).toBe(runner)
  })
})
