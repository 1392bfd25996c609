// `svc push` and `svc app push` send If-Match with the version their diff was made on (issues 27
// and 28): a change made on the server between the diff and the apply is never overwritten — the
// push stops with a clear message (exit 1) and a second push shows the diff against the current
// version. The change is made by a proxy between the CLI and a real `svc serve`, at the moment the
// write passes through it (the approach of test/dbs/push-if-match.test.ts). `--force` sends no
// If-Match. The commands that read a prompt, an app or a dashboard and then write or delete it
// (app replace, prompt update --scope-id, the deletes) send the tag of what they read, the same way.
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it, vi} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {startProxy} from '../helpers/proxy.js'
import {tempDir} from '../helpers/world.js'

vi.setConfig({testTimeout: 300_000, hookTimeout: 120_000})

const data = tempDir()
let server: ServeProcess | undefined
let proxy: Awaited<ReturnType<typeof startProxy>> | undefined
let proxyUrl = ''
let token = ''
/** Runs once, before the first write (PATCH or DELETE, replace too) of a prompt, an app or a dashboard passes through the proxy: someone else's change. */
let meanwhile: (() => Promise<void>) | undefined
/** Runs once, before the first GET of one prompt passes through the proxy (after the lists the diff is made from). */
let beforeRead: (() => Promise<void>) | undefined
/** The If-Match of every write that passed through the proxy, by `METHOD path`. */
const ifMatchOf = new Map<string, string | undefined>()

const direct = (method: string, path: string, body?: unknown) => fetch(`${server!.url}${path}`, {
  method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body),
}).then(async (r) => ({status: r.status, json: await r.json().catch(() => undefined)}))
const remote = (args: string[]) => svc([...args, '--url', proxyUrl, '--token', token])

beforeAll(async () => {
  token = (await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])).json.token
  server = await svcServe(data)
  proxy = await startProxy(server.url, async (req) => {
    if ((req.method === 'PATCH' || req.method === 'DELETE') && /^\/(svc\/(prompts|apps)\/[0-9a-f-]{36}(\/replace)?|toolkit\/dashboards\/\d+)\.json$/.test(req.url ?? '') && meanwhile) {
      const change = meanwhile
      meanwhile = undefined
      await change()
    }
    if (req.method === 'GET' && /^\/svc\/prompts\/[0-9a-f-]{36}\.json$/.test(req.url ?? '') && beforeRead) {
      const change = beforeRead
      beforeRead = undefined
      await change()
    }
    if (req.method === 'PATCH' || req.method === 'DELETE') ifMatchOf.set(`${req.method} ${req.url}`, req.headers['if-match'])
  })
  proxyUrl = proxy.url
})
afterAll(async () => {
  await proxy?.close()
  await server?.stop()
})

it('svc push: a prompt changed between the diff and the apply is not overwritten (exit 1); pushing again applies over the current version', async () => {
  const ws = tempDir()
  const created = await direct('POST', '/svc/prompts.json', {prompt: {name: 'Greet', code: 'greet', kind: 'chat', scope: 'account', content: 'Hello'}})
  expect(created.status).toBe(201)
  mkdirSync(join(ws, 'prompts'))
  writeFileSync(join(ws, 'prompts', 'greet.md'), '---\nname: Greet\nkind: chat\nscope: account\n---\nHello from the folder')
  meanwhile = async () => {
    expect((await direct('PATCH', `/svc/prompts/${created.json.id}.json`, {prompt: {content: 'Hello theirs'}})).status).toBe(200)
  }
  let r = await remote(['push', ws, '--yes'])
  expect(meanwhile).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).toBe(1)
  expect(r.stdout).toContain('+Hello from the folder')
  expect(r.stderr).toContain('prompts/greet.md changed on the backend after the diff was made: nothing was applied to it')
  expect(r.stderr).toContain('run svc push again')
  expect((await direct('GET', `/svc/prompts/${created.json.id}.json`)).json.content).toBe('Hello theirs')
  // Again: the diff is made against their version, then applied.
  r = await remote(['push', ws, '--yes'])
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain('-Hello theirs')
  expect((await direct('GET', `/svc/prompts/${created.json.id}.json`)).json.content).toBe('Hello from the folder')
})

it('svc app push: an app changed between the diff and the apply is not overwritten (exit 1); nothing of the folder is applied', async () => {
  const work = tempDir()
  const created = await direct('POST', '/svc/apps.json', {app: {name: 'Tagged', url_code: 'tagged', app_engine: 'js', css_engine: 'none', source_code: "document.title = 'one'\n"}})
  expect(created.status).toBe(201)
  const dir = join(work, 'tagged')
  const pull = await remote(['app', 'pull', 'tagged', dir])
  expect(pull.code, pull.stderr).toBe(0)
  writeFileSync(join(dir, 'app.js'), readFileSync(join(dir, 'app.js'), 'utf8').replace("'one'", "'mine'"))
  meanwhile = async () => {
    expect((await direct('PATCH', `/svc/apps/${created.json.id}.json`, {app: {description: 'theirs'}})).status).toBe(200)
  }
  const r = await remote(['app', 'push', dir])
  expect(meanwhile).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).toBe(1)
  expect(r.stdout).toContain("+document.title = 'mine'")
  expect(r.stderr).toContain('tagged changed on the backend after the diff was made: nothing was pushed')
  expect(r.stderr).toContain('run svc app push again')
  expect((await direct('GET', `/svc/apps/${created.json.id}.json`)).json).toMatchObject({description: 'theirs', source_code: "document.title = 'one'\n"})
})

it('svc push: a prompt changed between the lists and the read of its tag stops the push before anything is applied', async () => {
  const ws = tempDir()
  const created = await direct('POST', '/svc/prompts.json', {prompt: {name: 'Early', code: 'early', kind: 'chat', scope: 'account', content: 'Early one'}})
  expect(created.status).toBe(201)
  mkdirSync(join(ws, 'prompts'))
  writeFileSync(join(ws, 'prompts', 'early.md'), '---\nname: Early\nkind: chat\nscope: account\n---\nEarly from the folder')
  beforeRead = async () => {
    expect((await direct('PATCH', `/svc/prompts/${created.json.id}.json`, {prompt: {content: 'Early theirs'}})).status).toBe(200)
  }
  const r = await remote(['push', ws, '--yes'])
  expect(beforeRead).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).toBe(1)
  expect(r.stderr).toContain('prompts/early.md changed on the backend while the diff was made: nothing was applied to it')
  expect((await direct('GET', `/svc/prompts/${created.json.id}.json`)).json.content).toBe('Early theirs')
})

it('svc push: updates of a prompt, a db, an app and a dashboard pulled unchanged apply, each with the If-Match of its version', async () => {
  const ws = tempDir()
  const prompt = (await direct('POST', '/svc/prompts.json', {prompt: {name: 'Every', code: 'every', kind: 'chat', scope: 'account', content: 'Every one'}})).json
  const db = (await direct('POST', '/svc/dbs.json', {db: {name: 'Books', code: 'books', schema: {fields: {title: 'string'}}}})).json
  const app = (await direct('POST', '/svc/apps.json', {app: {name: 'Every app', url_code: 'every-app', app_engine: 'js', css_engine: 'none', source_code: "document.title = 'x'\n"}})).json
  const board = (await direct('POST', '/toolkit/dashboards.json', {dashboard: {name: 'Every board', layout: [{key: 'activity', size: 'half'}]}})).json
  expect((await remote(['pull', ws])).code).toBe(0)
  const edit = (path: string, change: (text: string) => string) => writeFileSync(join(ws, path), change(readFileSync(join(ws, path), 'utf8')))
  edit('prompts/every.md', (t) => t.replace('Every one', 'Every two'))
  edit('dbs/books.json', (t) => t.replace('"Books"', '"Books 2"'))
  edit('apps/every-app/app.js', (t) => t.replace("'x'", "'y'"))
  edit('dashboards/every-board.json', (t) => t.replace('"half"', '"full"'))
  const r = await remote(['push', ws, '--yes'])
  expect(r.code, r.stdout + r.stderr).toBe(0)
  expect(r.stdout).toContain('Done: 4 change(s) applied.')
  expect(ifMatchOf.get(`PATCH /svc/prompts/${prompt.id}.json`)).toMatch(/^"p/)
  expect(ifMatchOf.get(`PATCH /svc/dbs/${db.id}.json`)).toMatch(/^"d/)
  expect(ifMatchOf.get(`PATCH /svc/apps/${app.id}.json`)).toMatch(/^"a/)
  expect(ifMatchOf.get(`PATCH /toolkit/dashboards/${board.id}.json`)).toMatch(/^"b/)
  expect((await direct('GET', `/svc/dbs/${db.id}.json`)).json.name).toBe('Books 2')
  expect((await direct('GET', `/toolkit/dashboards/${board.id}.json`)).json.layout).toMatchObject([{key: 'activity', size: 'full'}])
})

it('svc push --force: a prompt changed between the diff and the apply is overwritten (no If-Match sent); exit 0', async () => {
  const ws = tempDir()
  const created = await direct('POST', '/svc/prompts.json', {prompt: {name: 'Forced', code: 'forced', kind: 'chat', scope: 'account', content: 'Forced one'}})
  expect(created.status).toBe(201)
  mkdirSync(join(ws, 'prompts'))
  writeFileSync(join(ws, 'prompts', 'forced.md'), '---\nname: Forced\nkind: chat\nscope: account\n---\nForced from the folder')
  meanwhile = async () => {
    expect((await direct('PATCH', `/svc/prompts/${created.json.id}.json`, {prompt: {content: 'Forced theirs'}})).status).toBe(200)
  }
  const r = await remote(['push', ws, '--yes', '--force'])
  expect(meanwhile).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).toBe(0)
  expect(ifMatchOf.has(`PATCH /svc/prompts/${created.json.id}.json`)).toBe(true)
  expect(ifMatchOf.get(`PATCH /svc/prompts/${created.json.id}.json`)).toBeUndefined()
  expect((await direct('GET', `/svc/prompts/${created.json.id}.json`)).json.content).toBe('Forced from the folder')
})

it('svc app push --force: an app changed between the diff and the apply is overwritten (no If-Match sent); exit 0', async () => {
  const work = tempDir()
  const created = await direct('POST', '/svc/apps.json', {app: {name: 'Forced app', url_code: 'forced-app', app_engine: 'js', css_engine: 'none', source_code: "document.title = 'one'\n"}})
  expect(created.status).toBe(201)
  const dir = join(work, 'forced-app')
  expect((await remote(['app', 'pull', 'forced-app', dir])).code).toBe(0)
  writeFileSync(join(dir, 'app.js'), readFileSync(join(dir, 'app.js'), 'utf8').replace("'one'", "'mine'"))
  meanwhile = async () => {
    expect((await direct('PATCH', `/svc/apps/${created.json.id}.json`, {app: {source_code: "document.title = 'theirs'\n"}})).status).toBe(200)
  }
  const r = await remote(['app', 'push', dir, '--force'])
  expect(meanwhile).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).toBe(0)
  expect(ifMatchOf.get(`PATCH /svc/apps/${created.json.id}.json`)).toBeUndefined()
  expect((await direct('GET', `/svc/apps/${created.json.id}.json`)).json.source_code).toBe("document.title = 'mine'\n")
})

/** A command that read the resource, then a change made before its write: exit 1, the refusal, `Try: run svc <command> again`. */
const refusedAfterRead = (r: {code: number; stdout: string; stderr: string}, what: string, command: string, nothing = 'nothing was written') => {
  expect(meanwhile).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).toBe(1)
  expect(r.stderr).toContain(`${what} changed on the server after it was read: ${nothing}`)
  expect(r.stderr).toContain(`run svc ${command} again`)
}

it('svc app replace applies to the version it read: an app changed before the replace is written is left alone (exit 1)', async () => {
  const app = (await direct('POST', '/svc/apps.json', {app: {name: 'Replaced', url_code: 'replaced', app_engine: 'js', css_engine: 'none', source_code: "document.title = 'one'\n"}})).json
  meanwhile = async () => {
    expect((await direct('PATCH', `/svc/apps/${app.id}.json`, {app: {source_code: "document.title = 'one'; console.log('theirs')\n"}})).status).toBe(200)
  }
  refusedAfterRead(await remote(['app', 'replace', 'replaced', '--old', 'one', '--new', 'two']), 'app replaced', 'app replace')
  expect(ifMatchOf.get(`PATCH /svc/apps/${app.id}/replace.json`)).toMatch(/^"a/)
  expect((await direct('GET', `/svc/apps/${app.id}.json`)).json.source_code).toBe("document.title = 'one'; console.log('theirs')\n")
  // Run again: it reads their version and replaces in it.
  const r = await remote(['app', 'replace', 'replaced', '--old', 'one', '--new', 'two'])
  expect(r.code, r.stderr).toBe(0)
  expect((await direct('GET', `/svc/apps/${app.id}.json`)).json.source_code).toBe("document.title = 'two'; console.log('theirs')\n")
})

it('svc prompt update --scope-id (which reads the stored scope) applies to the version it read (exit 1 when it changed)', async () => {
  const me = (await direct('GET', '/svc/me.json')).json
  const p = (await direct('POST', '/svc/prompts.json', {prompt: {name: 'Mine', code: 'scoped', kind: 'chat', scope: 'user', scope_id: me.id, content: 'one'}})).json
  meanwhile = async () => {
    expect((await direct('PATCH', `/svc/prompts/${p.id}.json`, {prompt: {content: 'theirs'}})).status).toBe(200)
  }
  refusedAfterRead(await remote(['prompt', 'update', 'scoped', '--scope-id', String(me.id), '--name', 'Renamed']), 'prompt scoped', 'prompt update')
  expect(ifMatchOf.get(`PATCH /svc/prompts/${p.id}.json`)).toMatch(/^"p/)
  expect((await direct('GET', `/svc/prompts/${p.id}.json`)).json).toMatchObject({name: 'Mine', content: 'theirs'})
})

it('svc app delete, prompt delete and dashboard delete delete the version they showed: one changed meanwhile stays (exit 1)', async () => {
  const app = (await direct('POST', '/svc/apps.json', {app: {name: 'Doomed', url_code: 'doomed', app_engine: 'js', css_engine: 'none', source_code: 'x()\n'}})).json
  meanwhile = async () => void expect((await direct('PATCH', `/svc/apps/${app.id}.json`, {app: {name: 'Doomed theirs'}})).status).toBe(200)
  refusedAfterRead(await remote(['app', 'delete', 'doomed', '--yes']), 'app doomed (Doomed)', 'app delete', 'nothing was deleted')
  expect((await direct('GET', `/svc/apps/${app.id}.json`)).json.name).toBe('Doomed theirs')

  const p = (await direct('POST', '/svc/prompts.json', {prompt: {name: 'Doomed', code: 'doomed', kind: 'chat', scope: 'account', content: 'one'}})).json
  meanwhile = async () => void expect((await direct('PATCH', `/svc/prompts/${p.id}.json`, {prompt: {content: 'theirs'}})).status).toBe(200)
  refusedAfterRead(await remote(['prompt', 'delete', 'doomed', '--yes']), 'prompt doomed (account)', 'prompt delete', 'nothing was deleted')
  expect((await direct('GET', `/svc/prompts/${p.id}.json`)).json.content).toBe('theirs')

  const board = (await direct('POST', '/toolkit/dashboards.json', {dashboard: {name: 'Doomed board', layout: [{key: 'activity', size: 'half'}]}})).json
  meanwhile = async () => void expect((await direct('PATCH', `/toolkit/dashboards/${board.id}.json`, {dashboard: {name: 'Theirs board'}})).status).toBe(200)
  refusedAfterRead(await remote(['dashboard', 'delete', String(board.id), '--yes']), `dashboard #${board.id} "Doomed board"`, 'dashboard delete', 'nothing was deleted')
  expect((await direct('GET', `/toolkit/dashboards/${board.id}.json`)).json.name).toBe('Theirs board')
  // Unchanged since the read: the delete applies.
  const r = await remote(['dashboard', 'delete', String(board.id), '--yes'])
  expect(r.code, r.stderr).toBe(0)
  expect(ifMatchOf.get(`DELETE /toolkit/dashboards/${board.id}.json`)).toMatch(/^"b/)
})
