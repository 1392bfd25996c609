// Issue 25 item 13: the small things a newcomer trips over — every command has an example, one
// spelling for one thing (old spellings still work), a rendered prompt ends its line on a terminal,
// help and docs say what is true and docs link only to files in the repo.
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {ROOT, svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {svcTty} from './tty.js'

describe('command line conventions', {timeout: 120_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const run = (...args: string[]) => svc([...args, '--data', data], {cwd: work})

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
    expect((await run('db', 'create', 'Books', '--code', 'books')).code).toBe(0)
    expect((await run('db', 'records', 'create', 'books', '{"t":"a"}')).code).toBe(0)
    expect((await run('prompt', 'create', '--name', 'P', '--code', 'p', '--content', 'hi')).code).toBe(0)
    expect((await run('flow', 'create', 'echo', '--program-json', '[{"type":"mutation","set":{"seen":true}}]')).code).toBe(0)
  }, 120_000)

  it('every command has at least one example in its help', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {examples?: unknown[]}>}
    const ids = Object.keys(manifest.commands)
    expect(ids.length).toBeGreaterThan(60)
    expect(ids.filter((id) => !manifest.commands[id]!.examples?.length)).toEqual([])
  })

  it('an example is shown by --help', async () => {
    const r = await svc(['cron', 'list', '--help'])
    expect(r.stdout).toContain('EXAMPLES')
    expect(r.stdout).toContain('$ svc cron list')
  })

  it('prompt render on a terminal ends with a newline; into a pipe the text is exact', async () => {
    for (const env of [{}, {SVC_NO_FASTPATH: '1'}]) {
      const tty = await svcTty(['prompt', 'render', 'p', '--data', data], {cwd: work, env})
      expect(tty.code).toBe(0)
      expect(tty.output.endsWith('hi\r\n'), JSON.stringify(tty.output.slice(-20))).toBe(true)
    }
    const piped = await run('prompt', 'render', 'p')
    expect(piped.stdout).toBe('hi')
    const oclif = await svc(['prompt', 'render', 'p', '--data', data], {env: {SVC_NO_FASTPATH: '1'}})
    expect(oclif.stdout).toBe('hi')
  })

  it('app dev --help names the folder format svc app pull writes (app.json), not svc-app.json', async () => {
    const r = await svc(['app', 'dev', '--help'])
    expect(r.stdout).not.toContain('svc-app.json')
    expect(r.stdout).toContain('app.json + source')
  })

  it('db push says a new field is required', async () => {
    writeFileSync(join(work, 'req.json'), JSON.stringify({name: 'Req', code: 'req', schema: {fields: {title: {type: 'string', required: true}, n: 'integer'}}}))
    const r = await run('db', 'push', 'req.json', '--dry-run')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('+ field title (string, required)')
    expect(r.stdout).toContain('+ field n (integer)\n')
  })

  it('--output is the output file (-o; --out still works)', async () => {
    expect((await run('db', 'export', 'books', '--output', 'a.ndjson')).code).toBe(0)
    expect((await run('db', 'export', 'books', '--out', 'b.ndjson')).code).toBe(0)
    expect(readFileSync(join(work, 'a.ndjson'), 'utf8')).toBe(readFileSync(join(work, 'b.ndjson'), 'utf8'))
    expect((await run('db', 'pull', 'books', '--output', 'books-def.json')).code).toBe(0)
    expect(existsSync(join(work, 'books-def.json'))).toBe(true)
  })

  it('JSON data is a DATA argument (--data-json still works; both at once is refused)', async () => {
    const arg = await run('flow', 'run', 'echo', '{"city":"Oslo"}', '--json')
    expect(arg.code, arg.stderr).toBe(0)
    expect(arg.json.input).toEqual({city: 'Oslo'})
    const flag = await run('flow', 'run', 'echo', '--data-json', '{"city":"Rome"}', '--json')
    expect(flag.json.input).toEqual({city: 'Rome'})
    const both = await run('flow', 'run', 'echo', '{"a":1}', '--data-json', '{"b":2}')
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('two data objects given')
    const notObject = await run('flow', 'run', 'echo', '[1]')
    expect(notObject.code).toBe(2)
    expect(notObject.stderr).toContain('DATA must be a JSON object')
  })

  it('flow create --program-file (--program still works)', async () => {
    writeFileSync(join(work, 'program.json'), '[{"type":"mutation","set":{"x":1}}]')
    expect((await run('flow', 'create', 'one', '--program-file', 'program.json')).code).toBe(0)
    expect((await run('flow', 'create', 'two', '--program', 'program.json')).code).toBe(0)
  })

  it('login takes the profile name as an argument, like logout (--name still works)', async () => {
    const env = {SVC_CONFIG_DIR: tempDir()}
    const r = await svc(['login', 'mine', '--data', data], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Saved profile "mine"')
    expect((await svc(['login', '--name', 'old', '--data', data], {env})).stdout).toContain('Saved profile "old"')
    const list = await svc(['profile', 'list', '--json'], {env})
    expect(list.json.map((p: {name: string}) => p.name).sort()).toEqual(['mine', 'old'])
    expect((await svc(['logout', 'mine'], {env})).code).toBe(0)
  })

  it('docs stand alone: every relative link points to a file in the repo, and the spec they cite is in docs/spec', () => {
    const pages = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))]
    const broken: string[] = []
    for (const page of pages) {
      const text = readFileSync(page, 'utf8')
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!
        if (/^[a-z]+:/i.test(target)) continue
        if (!existsSync(resolve(dirname(page), target))) broken.push(`${page.slice(ROOT.length)} → ${target}`)
      }
      // A spec file named in the text is a link to the copy in docs/spec.
      for (const name of ['platform-api.md', 'decisions.md']) {
        const bare = text.split('\n').filter((line) => line.includes(name) && !line.includes(`spec/${name}`))
        if (bare.length) broken.push(`${page.slice(ROOT.length)} names ${name} without linking docs/spec/${name}`)
      }
    }
    expect(broken).toEqual([])
    expect(existsSync(join(ROOT, 'docs', 'spec', 'platform-api.md'))).toBe(true)
    expect(existsSync(join(ROOT, 'docs', 'spec', 'decisions.md'))).toBe(true)
  })
})
