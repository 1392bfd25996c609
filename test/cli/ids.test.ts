// Issue 25 item 8: an id that is not a number is a usage error (exit 2) naming the argument, never
// "server or network" (exit 6, code internal); resources with a name are found by it (dbs, dashboards).
import {beforeAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

describe('ids, codes and names on the command line', {timeout: 120_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const run = (...args: string[]) => svc([...args, '--data', data], {cwd: work})

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
    expect((await run('db', 'create', 'Books')).code).toBe(0)
    expect((await run('db', 'create', 'Notes', '--code', 'notes')).code).toBe(0)
    expect((await run('dashboard', 'create', '--name', 'Sales')).code).toBe(0)
  }, 120_000)

  it('a non-numeric cron, record or dashboard id: exit 2, the argument named, where ids are listed', async () => {
    for (const args of [['cron', 'delete', 'x', '--yes'], ['cron', 'run', 'x'], ['cron', 'update', 'x', '--no-active'],
      ['db', 'records', 'update', 'notes', 'x', '{}'], ['db', 'records', 'delete', 'notes', 'x', '--yes']]) {
      const r = await run(...args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(/Error: ID must be a number \((cron|record) id\), got "x"/)
      expect(r.stderr, args.join(' ')).toMatch(/Try: the ids are listed by: svc (cron list|db records list DB)/)
      const json = await run(...args, '--json')
      expect(json.json.error, args.join(' ')).toMatchObject({code: 'usage'})
    }
  })

  it('a dashboard by name; an unknown one is a 404 with the list command', async () => {
    const byName = await run('dashboard', 'get', 'sales', '--json')
    expect(byName.code, byName.stdout).toBe(0)
    expect(byName.json).toMatchObject({name: 'Sales'})
    const missing = await run('dashboard', 'get', 'x')
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('no dashboard "x"')
    expect(missing.stderr).toContain('svc dashboard list')
  })

  it('a database created without --code is found by its name, in every db command', async () => {
    const got = await run('db', 'get', 'Books', '--json')
    expect(got.code, got.stderr).toBe(0)
    expect(got.json).toMatchObject({name: 'Books', code: null})
    expect((await run('db', 'get', 'books', '--json')).json).toMatchObject({name: 'Books'})
    const created = await run('db', 'records', 'create', 'Books', '{"title":"Dune"}', '--json')
    expect(created.code, created.stderr).toBe(0)
    const listed = await run('db', 'records', 'list', 'Books', '--json')
    expect(listed.json).toHaveLength(1)
    expect((await run('db', 'records', 'update', 'Books', String(created.json.id), '{"n":1}', '--json')).json).toMatchObject({data: {title: 'Dune', n: 1}})
    expect((await run('db', 'search', 'Books', '--json')).json).toHaveLength(1)
  })

  it('an unknown database says what was looked up and how to find it', async () => {
    const r = await run('db', 'get', 'Nope')
    expect(r.code).toBe(4)
    expect(r.stderr).toContain('Error: no database "Nope" (looked up by id, code and name)')
    expect(r.stderr).toContain('Try: list them with: svc db list')
  })
})
