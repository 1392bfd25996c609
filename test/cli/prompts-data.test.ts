// Issue 19 items 8, 9, 10: prompts by code, --scope-id by name; render variables (JSON, file,
// bad names, the warning for missing ones) on the fast path and through oclif; db import all or
// nothing, resumable without duplicates.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

describe('prompts by code and render variables', {timeout: 180_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const run = (args: string[], env: Record<string, string> = {}) => svc([...args, '--data', data], {cwd: work, env})

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--team', 'sales', '--department', 'north', '--data', data, '--json'])).code).toBe(0)
    const c = await run(['prompt', 'create', '--name', 'Greet', '--code', 'greet', '--content', 'Hi {{ who }}{% for i in items %} [{{ i.n }}]{% endfor %} {{ extra }}'])
    expect(c.code, c.stderr).toBe(0)
  }, 300_000)
  it('get, update and delete take the code as well as the id', async () => {
    const got = await run(['prompt', 'get', 'greet', '--json'])
    expect(got.code, got.stderr).toBe(0)
    expect(got.json.code).toBe('greet')
    const byId = await run(['prompt', 'get', got.json.id, '--json'])
    expect(byId.json.id).toBe(got.json.id)
    const up = await run(['prompt', 'update', 'greet', '--name', 'Greeting', '--json'])
    expect(up.json).toMatchObject({id: got.json.id, name: 'Greeting'})
    const missing = await run(['prompt', 'get', 'nope'])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('no stored prompt with code "nope"')
  })

  it('a code stored in two scopes is ambiguous unless --scope picks one', async () => {
    expect((await run(['prompt', 'create', '--name', 'Mine', '--code', 'greet', '--scope', 'user', '--content', 'mine'])).code).toBe(0)
    const amb = await run(['prompt', 'get', 'greet'])
    expect(amb.code).toBe(2)
    expect(amb.stderr).toContain('stored in 2 scopes')
    expect((await run(['prompt', 'get', 'greet', '--scope', 'user', '--json'])).json.content).toBe('mine')
    expect((await run(['prompt', 'delete', 'greet', '--scope', 'user', '--yes'])).code).toBe(0)
  })

  it('--scope-id takes a team or department name; an unknown name is a clear usage error', async () => {
    const team = await run(['prompt', 'create', '--name', 'Sales', '--code', 'pitch', '--scope', 'team', '--scope-id', 'sales', '--content', 'x', '--json'])
    expect(team.code, team.stderr + team.stdout).toBe(0)
    const me = await run(['whoami', '--json'])
    expect(team.json.scope_id).toBe(me.json.team_ids[0])
    const dep = await run(['prompt', 'update', 'pitch', '--scope', 'department', '--scope-id', 'North', '--json'])
    expect(dep.json).toMatchObject({scope: 'department', scope_id: me.json.department_ids[0]})
    const bad = await run(['prompt', 'create', '--name', 'X', '--code', 'x', '--scope', 'team', '--scope-id', 'marketing', '--content', 'x'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('no team named "marketing"')
    expect(bad.stderr).toContain('sales')
  })

  for (const fastpath of [true, false]) {
    const env = fastpath ? {} : {SVC_NO_FASTPATH: '1'}
    describe(fastpath ? 'render (fast path)' : 'render (oclif)', () => {
      it('--var name:=JSON and --vars FILE give lists and objects; --var wins over the file', async () => {
        writeFileSync(join(work, 'vars.json'), JSON.stringify({who: 'file', items: [{n: 1}], extra: 'e'}))
        const r = await run(['prompt', 'render', 'greet', '--vars', 'vars.json', '--var', 'who=Ada', '--var', 'items:=[{"n":2},{"n":3}]'], env)
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout).toBe('Hi Ada [2] [3] e')
        expect(r.stderr).not.toContain('Warning')
      })

      it('a bad variable name or bad JSON is refused, not dropped', async () => {
        const name = await run(['prompt', 'render', 'greet', '--var', 'bad name=1'], env)
        expect(name.code).toBe(2)
        expect(name.stderr).toContain('"bad name" is not a variable name')
        const json = await run(['prompt', 'render', 'greet', '--var', 'items:=[1,'], env)
        expect(json.code).toBe(2)
        expect(json.stderr).toContain('--var items is not valid JSON')
      })

      it('a variable nobody gave renders blank with a warning on stderr; --strict fails', async () => {
        const r = await run(['prompt', 'render', 'greet', '--var', 'who=Ada'], env)
        expect(r.code).toBe(0)
        expect(r.stdout).toBe('Hi Ada ')
        expect(r.stderr).toMatch(/Warning: not given, rendered blank: items, extra/)
        const json = await run(['prompt', 'render', 'greet', '--var', 'who=Ada', '--json'], env)
        expect(json.json.missing).toEqual(['items', 'extra'])
        expect(json.stderr).toBe('')
        const strict = await run(['prompt', 'render', 'greet', '--strict'], env)
        expect(strict.code).toBe(5)
      })
    })
  }
})

describe('db import', {timeout: 180_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const run = (...args: string[]) => svc([...args, '--data', data], {cwd: work})

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
    expect((await run('db', 'create', 'Books', '--code', 'books', '--schema', '{"fields":{"n":"integer"}}')).code).toBe(0)
  }, 300_000)
  it('a bad record anywhere imports nothing and names its line', async () => {
    const lines = Array.from({length: 1300}, (_, i) => JSON.stringify({n: i === 1200 ? 'oops' : i}))
    writeFileSync(join(work, 'books.ndjson'), lines.join('\n') + '\n')
    const r = await run('db', 'import', 'books', 'books.ndjson', '--batch', '500')
    expect(r.code).toBe(5)
    expect(r.stderr).toContain('nothing imported')
    expect(r.stderr).toContain('line 1201')
    expect((await run('db', 'get', 'books', '--json')).json.records_count).toBe(0)
    lines[1200] = JSON.stringify({n: 1200})
    writeFileSync(join(work, 'books.ndjson'), lines.join('\n') + '\n')
    const ok = await run('db', 'import', 'books', 'books.ndjson', '--batch', '500', '--json')
    expect(ok.json).toEqual({imported: 1300, next_line: 1301})
    expect((await run('db', 'get', 'books', '--json')).json.records_count).toBe(1300)
  })

  it('--from-line resumes without duplicates', async () => {
    const lines = Array.from({length: 10}, (_, i) => JSON.stringify({n: 5000 + i}))
    writeFileSync(join(work, 'more.ndjson'), lines.join('\n') + '\n')
    const r = await run('db', 'import', 'books', 'more.ndjson', '--from-line', '6', '--json')
    expect(r.json).toEqual({imported: 5, next_line: 11})
    const found = await run('db', 'search', 'books', '--filter', 'n=5000', '--json')
    expect(found.json).toEqual([])
  })
})
