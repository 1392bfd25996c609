import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

// Each call starts the real binary; a create compiles in a fresh process: generous timeouts for a busy 2-core machine.
describe('svc app: embedded (--data) and remote (--url --token)', {timeout: 180_000}, () => {
  const data = tempDir()
  const work = tempDir()
  let server: ServeProcess | undefined
  let token = ''
  const local = (args: string[], input?: string) => svc([...args, '--data', data], {cwd: work, input})
  const remote = (args: string[]) => svc([...args, '--url', server!.url, '--token', token], {cwd: work})

  beforeAll(async () => {
    const r = await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])
    token = r.json.token
    server = await svcServe(data)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('app is a topic of svc --help', async () => {
    const r = await svc(['app', '--help'])
    for (const c of ['list', 'get', 'create', 'update', 'delete', 'open', 'replace', 'push', 'pull', 'dev']) expect(r.stdout).toContain(`app ${c}`)
  })

  it('create --template scaffolds a folder and the server compiles it; list and get find it', async () => {
    const r = await local(['app', 'create', '--template', 'svelte', '--name', 'Counter', '--public', '--dir', 'counter', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({name: 'Counter', url_code: 'counter', app_engine: 'svelte', public: true})
    expect(JSON.parse(readFileSync(join(work, 'counter', 'app.json'), 'utf8'))).toMatchObject({url_code: 'counter', app_engine: 'svelte'})
    expect(readFileSync(join(work, 'counter', 'App.svelte'), 'utf8')).toContain('$state(0)')
    const list = await remote(['app', 'list'])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain('counter')
    const got = await remote(['app', 'get', 'counter', '--json'])
    expect(got.json.id).toBe(r.json.id)
    const page = await fetch(`${server!.url}/a/counter`)
    expect(await page.text()).toContain('SvcAppContext')
  })

  it('create from a file, update, replace, open, delete (remote and embedded alike)', async () => {
    writeFileSync(join(work, 'app.js'), 'document.getElementById("svc-app").textContent = "one"')
    const c = await remote(['app', 'create', '--name', 'Plain', '--engine', 'js', '--file', 'app.js', '--url-code', 'Plain App', '--json'])
    expect(c.code, c.stdout + c.stderr).toBe(0)
    expect(c.json.url_code).toBe('plain-app')
    const u = await local(['app', 'update', 'plain-app', '--description', 'hello', '--no-active', '--dashboard-widget', '--json'])
    expect(u.json).toMatchObject({description: 'hello', active: false, fields: {dashboard_widget: true}})
    const rep = await remote(['app', 'replace', 'plain-app', '--old', '"one"', '--new', '"two"', '--json'])
    expect(rep.code, rep.stdout).toBe(0)
    expect(rep.json.source_code).toContain('"two"')
    const miss = await remote(['app', 'replace', 'plain-app', '--old', 'zzz', '--new', 'y', '--json'])
    expect(miss.code).toBe(5)
    expect(miss.json.error.details).toEqual({old_string: ['not found']})
    const open = await remote(['app', 'open', 'plain-app', '--no-browser', '--json'])
    expect(open.json).toEqual({id: c.json.id, url: `${server!.url}/a/plain-app`})
    const bad = await local(['app', 'create', '--name', 'x', '--engine', 'js', '--file', 'app.js', '--show-in-module', 'nope', '--json'])
    expect(bad.code).toBe(5)
    expect(bad.json.error.details.show_in_module).toBeDefined()
    const del = await local(['app', 'delete', 'plain-app', '--yes', '--json'])
    expect(del.json).toEqual({id: c.json.id, deleted: true})
    expect((await remote(['app', 'get', 'plain-app', '--json'])).code).toBe(4)
  })

  it('pull writes the folder, push sends an edit and reports a compile error as a validation failure', async () => {
    const pull = await remote(['app', 'pull', 'counter', 'pulled', '--json'])
    expect(pull.code, pull.stderr).toBe(0)
    const file = join(work, 'pulled', 'App.svelte')
    writeFileSync(file, readFileSync(file, 'utf8').replace('Clicked', 'Pressed'))
    const push = await local(['app', 'push', 'pulled', '--json'])
    expect(push.code, push.stderr).toBe(0)
    expect(push.json.source_code).toContain('Pressed')
    writeFileSync(file, '<script>\nlet x = $state(\n</script>')
    const broken = await remote(['app', 'push', 'pulled'])
    expect(broken.code).toBe(5)
    expect(broken.stderr).toMatch(/source_code: line \d+, column \d+/)
    const fresh = await local(['app', 'create', '--template', 'html', '--name', 'Fresh', '--dir', 'fresh', '--json'])
    expect(fresh.code).toBe(0)
    expect(existsSync(join(work, 'fresh', 'index.html'))).toBe(true)
  })
})
