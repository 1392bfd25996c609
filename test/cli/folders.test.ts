// Issue 19 items 2 and 3 (files): one app folder format for `svc pull` and `svc app pull/create
// --dir`; pushes refuse to overwrite a change made on the backend since the last sync (--force
// overrides, the diff is shown); pulls refuse to overwrite files edited locally.
import {spawn} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {BIN, cliEnv, svc, killOnExit} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

describe('app folders and workspace sync', {timeout: 180_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const ws = join(work, 'ws')
  const run = (...args: string[]) => svc([...args, '--data', data], {cwd: work})
  const read = (path: string) => readFileSync(join(work, path), 'utf8')

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
    writeFileSync(join(work, 'counter.js'), 'document.body.textContent = "one"\n')
    const created = await run('app', 'create', '--name', 'Counter', '--file', 'counter.js', '--url-code', 'counter', '--dir', 'made', '--json')
    expect(created.code, created.stderr).toBe(0)
  }, 300_000)
  it('app create --dir, app pull and svc pull write the same app.json; no svc-app.json', async () => {
    expect(existsSync(join(work, 'made', 'svc-app.json'))).toBe(false)
    expect((await run('app', 'pull', 'counter', 'pulled')).code).toBe(0)
    const pull = await run('pull', '--dir', 'ws', '--json')
    expect(pull.code, pull.stderr).toBe(0)
    expect(read('made/app.json')).toBe(read('ws/apps/counter/app.json'))
    expect(read('pulled/app.json')).toBe(read('ws/apps/counter/app.json'))
    expect(read('pulled/app.js')).toBe(read('ws/apps/counter/app.js'))
    expect(JSON.parse(read('ws/apps/counter/app.json'))).toMatchObject({name: 'Counter', url_code: 'counter', app_engine: 'js'})
  })

  it('app push of a folder written by svc pull updates that app (no copy)', async () => {
    writeFileSync(join(ws, 'apps/counter/app.js'), 'document.body.textContent = "two"\n')
    const r = await run('app', 'push', 'ws/apps/counter', '--json')
    expect(r.code, r.stderr + r.stdout).toBe(0)
    expect(r.json).toMatchObject({url_code: 'counter', source_code: 'document.body.textContent = "two"\n'})
    const list = await run('app', 'list', '--json')
    expect(list.json.map((a: {url_code: string}) => a.url_code)).toEqual(['counter'])
    // The workspace agrees: nothing left to push.
    expect((await run('push', '--dir', 'ws', '--json')).json.changes).toEqual([])
  })

  it('a legacy svc-app.json folder still pushes to its app and becomes app.json', async () => {
    const id = (await run('app', 'get', 'counter', '--json')).json.id
    const legacy = join(work, 'legacy')
    const {mkdirSync} = await import('node:fs')
    mkdirSync(legacy)
    writeFileSync(join(legacy, 'svc-app.json'), JSON.stringify({id, name: 'Counter', app_engine: 'js', css_engine: 'none'}))
    writeFileSync(join(legacy, 'app.js'), 'document.body.textContent = "two"\n')
    const r = await run('app', 'push', 'legacy', '--json')
    expect(r.code, r.stderr + r.stdout).toBe(0)
    expect(r.json.id).toBe(id)
    expect(existsSync(join(legacy, 'svc-app.json'))).toBe(false)
    expect(JSON.parse(readFileSync(join(legacy, 'app.json'), 'utf8'))).toMatchObject({url_code: 'counter'})
  })

  it('app push refuses to overwrite a change made on the backend since the pull; shows the diff; --force overwrites', async () => {
    expect((await run('app', 'pull', 'counter', 'mine', '--force')).code).toBe(0)
    const change = await run('app', 'replace', 'counter', '--old', '"two"', '--new', '"from the server"')
    expect(change.code, change.stderr).toBe(0)
    writeFileSync(join(work, 'mine/app.js'), 'document.body.textContent = "mine"\n')
    const refused = await run('app', 'push', 'mine')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('changed on the backend since your last pull')
    expect(refused.stdout).toContain('-document.body.textContent = "from the server"')
    expect(refused.stdout).toContain('+document.body.textContent = "mine"')
    expect((await run('app', 'get', 'counter', '--source')).stdout).toContain('from the server')
    const forced = await run('app', 'push', 'mine', '--force', '--json')
    expect(forced.code, forced.stderr).toBe(0)
    expect(forced.json.source_code).toContain('"mine"')
    // Once pushed, the next push from that folder has nothing to refuse.
    writeFileSync(join(work, 'mine/app.js'), 'document.body.textContent = "mine again"\n')
    expect((await run('app', 'push', 'mine')).code).toBe(0)
  })

  it('svc push refuses to overwrite a backend change since the pull (exit 1, the diff, --force); --dry-run shows it', async () => {
    expect((await run('pull', '--dir', 'ws', '--force')).code).toBe(0)
    expect((await run('prompt', 'create', '--name', 'Hi', '--code', 'hi', '--content', 'hello from the server')).code).toBe(0)
    expect((await run('pull', '--dir', 'ws')).code).toBe(0)
    expect((await run('prompt', 'update', 'hi', '--content', 'changed on the server')).code).toBe(0)
    const file = join(ws, 'prompts/hi.md')
    writeFileSync(file, readFileSync(file, 'utf8').replace('hello from the server', 'changed locally'))
    const dry = await run('push', '--dir', 'ws', '--dry-run', '--json')
    expect(dry.json.conflicts).toEqual(['prompts/hi.md'])
    const refused = await run('push', '--dir', 'ws', '--yes')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('the backend changed prompts/hi.md since your last pull')
    expect(refused.stdout).toContain('-changed on the server')
    expect((await run('prompt', 'get', 'hi', '--json')).json.content).toBe('changed on the server')
    const forced = await run('push', '--dir', 'ws', '--yes', '--force', '--json')
    expect(forced.code, forced.stderr).toBe(0)
    expect((await run('prompt', 'get', 'hi', '--json')).json.content).toBe('changed locally')
  })

  it('svc pull does not overwrite files edited since the last pull without --force', async () => {
    expect((await run('pull', '--dir', 'ws')).code).toBe(0)
    const file = join(ws, 'prompts/hi.md')
    writeFileSync(file, readFileSync(file, 'utf8').replace('changed locally', 'unsaved work'))
    expect((await run('prompt', 'update', 'hi', '--content', 'newer on the server')).code).toBe(0)
    const refused = await run('pull', '--dir', 'ws')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('prompts/hi.md')
    expect(readFileSync(file, 'utf8')).toContain('unsaved work')
    // A file nobody edited locally is updated without asking.
    expect((await run('app', 'replace', 'counter', '--old', 'again', '--new', 'and again')).code).toBe(0)
    const forced = await run('pull', '--dir', 'ws', '--force', '--json')
    expect(forced.code, forced.stderr).toBe(0)
    expect(readFileSync(file, 'utf8')).toContain('newer on the server')
    // The same for app pull.
    writeFileSync(join(work, 'mine/app.js'), 'local edit\n')
    const app = await run('app', 'pull', 'counter', 'mine')
    expect(app.code).toBe(2)
    expect(readFileSync(join(work, 'mine/app.js'), 'utf8')).toBe('local edit\n')
  })
})

// Issue 25 item 7: `svc push|pull|dev DIR` take the folder as `svc init DIR` does (--dir still works).
describe('workspace commands take the folder as an argument', {timeout: 180_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const run = (...args: string[]) => svc([...args, '--data', data], {cwd: work})

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
    const init = await svc(['init', 'my-ws'], {cwd: work})
    expect(init.code, init.stderr).toBe(0)
    expect(init.stdout).toContain('Next: svc push my-ws ')
  }, 120_000)

  it('push DIR and pull DIR work on that folder; --dir is the same; two different folders are refused', async () => {
    const pushed = await run('push', 'my-ws', '--yes', '--json')
    expect(pushed.code, pushed.stderr + pushed.stdout).toBe(0)
    expect(pushed.json.applied.length).toBeGreaterThan(0)
    const again = await run('push', 'my-ws', '--dry-run', '--json')
    expect(again.json.changes).toEqual([])
    expect((await run('push', '--dir', 'my-ws', '--dry-run', '--json')).json.changes).toEqual([])
    const pulled = await run('pull', 'other-ws', '--json')
    expect(pulled.code, pulled.stderr).toBe(0)
    expect(existsSync(join(work, 'other-ws', 'apps', 'hello', 'app.json'))).toBe(true)
    const both = await run('pull', 'my-ws', '--dir', 'other-ws')
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('two folders given')
  })

  it('dev DIR watches that folder', async () => {
    const child = killOnExit(spawn(process.execPath, [BIN, 'dev', 'my-ws', '--no-app-dev', '--data', data], {cwd: work, env: cliEnv()}))
    let out = ''
    const watching = await new Promise<boolean>((resolve) => {
      child.stdout.on('data', (d) => {
        out += d
        if (out.includes('watching')) resolve(true)
      })
      child.stderr.on('data', (d) => (out += d))
      child.on('exit', () => resolve(false))
    })
    const exited = new Promise((done) => (child.exitCode === null ? child.once('exit', done) : done(null)))
    child.kill('SIGTERM')
    await exited
    expect(watching, out).toBe(true)
    expect(out).toMatch(/watching my-ws \(/)
  })
})
