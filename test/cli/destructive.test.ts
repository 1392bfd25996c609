// Issue 19 items 3 and 4: every destructive command asks on a terminal and needs --yes without
// one (exit 2, nothing changed); db export does not overwrite a file it did not write.
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {plain, svcTty} from './tty.js'

describe('confirmation of destructive commands', {timeout: 180_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const run = (...args: string[]) => svc([...args, '--data', data], {cwd: work})

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
    expect((await run('db', 'create', 'Tmp', '--code', 'tmp')).code).toBe(0)
    expect((await run('db', 'records', 'create', 'tmp', '{"a":1}')).code).toBe(0)
    writeFileSync(join(work, 'x.js'), 'document.body.textContent = "x"')
    expect((await run('app', 'create', '--name', 'X', '--file', 'x.js', '--url-code', 'x')).code).toBe(0)
    expect((await run('prompt', 'create', '--name', 'P', '--code', 'p', '--content', 'hi')).code).toBe(0)
  }, 300_000)
  it('without a terminal and without --yes, every delete refuses with exit 2 and deletes nothing', async () => {
    const cases: [string[], string[]][] = [
      [['db', 'delete', 'tmp'], ['db', 'get', 'tmp']],
      [['db', 'records', 'delete', 'tmp', '1'], ['db', 'records', 'list', 'tmp']],
      [['app', 'delete', 'x'], ['app', 'get', 'x']],
      [['prompt', 'delete', 'p'], ['prompt', 'get', 'p']],
    ]
    for (const [del, check] of cases) {
      const r = await run(...del)
      expect(r.code, del.join(' ')).toBe(2)
      expect(r.stderr, del.join(' ')).toContain('confirmation needs a terminal')
      expect(r.stderr).toContain('--yes')
      expect((await run(...check)).code, check.join(' ')).toBe(0)
    }
    const json = await run('db', 'delete', 'tmp', '--json')
    expect(json.json.error).toMatchObject({code: 'usage'})
  })

  it('on a terminal the question names what goes (records included); "n" keeps it, "y" deletes it', async () => {
    const no = await svcTty(['db', 'delete', 'tmp', '--data', data], {keys: 'n\r', cwd: work})
    expect(no.code).toBe(0)
    expect(plain(no.output)).toContain('Delete database tmp (Tmp) and its 1 record?')
    expect(plain(no.output)).toContain('Nothing deleted.')
    expect((await run('db', 'get', 'tmp')).code).toBe(0)
    const yes = await svcTty(['db', 'delete', 'tmp', '--data', data], {keys: 'y\r', cwd: work})
    expect(yes.code).toBe(0)
    expect(plain(yes.output)).toContain('Deleted database tmp')
    expect((await run('db', 'get', 'tmp')).code).toBe(4)
  })

  it('--yes deletes without asking', async () => {
    const r = await run('app', 'delete', 'x', '--yes', '--json')
    expect(r.json).toMatchObject({deleted: true})
    expect((await run('prompt', 'delete', 'p', '--yes')).code).toBe(0)
  })

  it('db export without -o does not overwrite an existing file; --force does; -o - writes stdout', async () => {
    expect((await run('db', 'create', 'Books', '--code', 'books')).code).toBe(0)
    expect((await run('db', 'records', 'create', 'books', '{"t":"a"}')).code).toBe(0)
    writeFileSync(join(work, 'books.ndjson'), 'precious\n')
    const refused = await run('db', 'export', 'books')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('books.ndjson exists')
    expect(refused.stderr).toContain('--force')
    expect(readFileSync(join(work, 'books.ndjson'), 'utf8')).toBe('precious\n')
    const forced = await run('db', 'export', 'books', '--force', '--json')
    expect(forced.json).toMatchObject({exported: 1})
    expect(readFileSync(join(work, 'books.ndjson'), 'utf8')).toContain('"t":"a"')
    const out = await run('db', 'export', 'books', '-o', '-')
    expect(JSON.parse(out.stdout).data).toEqual({t: 'a'})
    const fresh = await run('db', 'export', 'books', '-o', 'new.ndjson')
    expect(fresh.code).toBe(0)
    expect(existsSync(join(work, 'new.ndjson'))).toBe(true)
  })

  // Issue 25 item 9.
  it('db pull does not overwrite an edited definition file: refused without a terminal, --force writes, "n" on a terminal keeps it', async () => {
    expect((await run('db', 'create', 'Shelf', '--code', 'shelf')).code).toBe(0)
    const first = await run('db', 'pull', 'shelf')
    expect(first.code, first.stderr).toBe(0)
    expect((await run('db', 'pull', 'shelf')).code).toBe(0) // the same content: nothing to ask
    writeFileSync(join(work, 'shelf.json'), '{"name": "Shelf", "code": "shelf", "schema": {"fields": {"mine": "string"}}}\n')
    const refused = await run('db', 'pull', 'shelf')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('Error: not written: shelf.json exists')
    expect(refused.stderr).toContain('Try: pass --force')
    expect(readFileSync(join(work, 'shelf.json'), 'utf8')).toContain('mine')
    const no = await svcTty(['db', 'pull', 'shelf', '--data', data], {keys: 'n\r', cwd: work})
    expect(plain(no.output)).toContain('shelf.json exists with other content')
    expect(plain(no.output)).toContain('Nothing written.')
    expect(no.code).toBe(0)
    expect(readFileSync(join(work, 'shelf.json'), 'utf8')).toContain('mine')
    expect((await run('db', 'pull', 'shelf', '--force')).code).toBe(0)
    expect(readFileSync(join(work, 'shelf.json'), 'utf8')).not.toContain('mine')
  })

  it('openapi -o does not overwrite another file without --force', async () => {
    writeFileSync(join(work, 'api.json'), 'mine\n')
    const refused = await svc(['openapi', '-o', 'api.json'], {cwd: work})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('not written: api.json exists')
    expect(readFileSync(join(work, 'api.json'), 'utf8')).toBe('mine\n')
    expect((await svc(['openapi', '-o', 'api.json', '--force'], {cwd: work})).code).toBe(0)
    expect(JSON.parse(readFileSync(join(work, 'api.json'), 'utf8')).openapi).toMatch(/^3\.1/)
    expect((await svc(['openapi', '-o', 'api.json'], {cwd: work})).code).toBe(0) // the same document again
  })

  it('app create --dir into an app folder: refused (no app created) without --force; --force replaces the folder\'s app files', async () => {
    const made = await run('app', 'create', '--template', 'svelte', '--name', 'Counter', '--url-code', 'counter', '--dir', 'counter')
    expect(made.code, made.stderr).toBe(0)
    const before = readFileSync(join(work, 'counter', 'app.json'), 'utf8')
    const refused = await run('app', 'create', '--template', 'vue', '--name', 'Counter 2', '--url-code', 'counter2', '--dir', 'counter')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/not written: .*app\.json.*App\.svelte exist/)
    expect(readFileSync(join(work, 'counter', 'app.json'), 'utf8')).toBe(before)
    expect((await run('app', 'get', 'counter2')).code).toBe(4)
    const forced = await run('app', 'create', '--template', 'vue', '--name', 'Counter 2', '--url-code', 'counter2', '--dir', 'counter', '--force')
    expect(forced.code, forced.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(work, 'counter', 'app.json'), 'utf8'))).toMatchObject({url_code: 'counter2', app_engine: 'vue'})
    expect(existsSync(join(work, 'counter', 'App.vue'))).toBe(true)
    expect(existsSync(join(work, 'counter', 'App.svelte'))).toBe(false)
  })
})
