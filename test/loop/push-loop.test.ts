// The daily loop's pushes (issue 39, items 1 and 3): a second `svc app push` of docs/apps.md's own
// app.json is not refused, `svc app pull` leaves defaults out, and every push command (`svc push`,
// `svc db push`, `svc dev`) plans a db change the same way — one server plan
// (`POST /svc/dbs/plan.json`), one data-loss and invalid-record refusal, one sync state.
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const data = tempDir()
const target = ['--data', data]

beforeAll(async () => {
  const r = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
  expect(r.code, r.stderr).toBe(0)
})

describe('svc app push, again and again (docs/apps.md\'s app.json)', () => {
  it('a second push with no edit is up to date, an edit pushes, pull leaves the defaults out', async () => {
    const dir = join(tempDir(), 'counter')
    mkdirSync(dir)
    // docs/apps.md, "Svelte": the app.json as the docs write it, on one line.
    writeFileSync(join(dir, 'app.json'), '{"name":"Counter","app_engine":"svelte","public":true}\n')
    writeFileSync(join(dir, 'App.svelte'), '<script>let n = $state(0)</script>\n<button onclick={() => n++}>{n}</button>\n')
    let r = await svc(['app', 'push', dir, ...target])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Created app counter')
    r = await svc(['app', 'push', dir, ...target])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain('counter is up to date')
    expect(r.stdout).not.toContain('"css_engine"')
    writeFileSync(join(dir, 'App.svelte'), '<script>let n = $state(1)</script>\n<button onclick={() => n++}>{n}</button>\n')
    r = await svc(['app', 'push', dir, ...target])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain('+<script>let n = $state(1)</script>')
    expect(r.stdout).not.toContain('css_engine')
    // A default written out is the same app as one left out.
    writeFileSync(join(dir, 'app.json'), JSON.stringify({name: 'Counter', app_engine: 'svelte', public: true, css_engine: 'tailwind_all', active: true}))
    r = await svc(['app', 'push', dir, ...target])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain('counter is up to date')
    // Pull writes the file without the defaults (the docs' promise), over the folder the push synced.
    r = await svc(['app', 'pull', 'counter', dir, ...target])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, 'app.json'), 'utf8'))).toEqual({name: 'Counter', url_code: 'counter', app_engine: 'svelte', public: true})
    r = await svc(['app', 'push', dir, ...target])
    expect(r.stdout).toContain('counter is up to date')
  })

  it('a change made on the backend since the push is still refused', async () => {
    const dir = join(tempDir(), 'tally')
    mkdirSync(dir)
    writeFileSync(join(dir, 'app.json'), '{"name":"Tally","app_engine":"svelte"}')
    writeFileSync(join(dir, 'App.svelte'), '<p>one</p>\n')
    expect((await svc(['app', 'push', dir, ...target])).code).toBe(0)
    expect((await svc(['app', 'update', 'tally', '--css', 'none', ...target])).code).toBe(0)
    writeFileSync(join(dir, 'App.svelte'), '<p>two</p>\n')
    const r = await svc(['app', 'push', dir, ...target])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('not pushed: tally changed on the backend since your last pull')
  })
})

describe('one db plan for every push command', () => {
  const guestbook = (fields: Record<string, unknown>) => JSON.stringify({name: 'Guestbook', code: 'guestbook', schema: {fields}, public_methods: {list: true, create: true}}, null, 2) + '\n'

  it('svc push refuses to drop a field holding data as svc db push does; svc db push ws takes the workspace; no false conflict after it', async () => {
    const ws = join(tempDir(), 'ws')
    mkdirSync(join(ws, 'dbs'), {recursive: true})
    writeFileSync(join(ws, 'dbs', 'guestbook.json'), guestbook({author: 'string', message: 'text'}))
    let r = await svc(['push', ws, '--yes', ...target])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    r = await svc(['db', 'import', 'guestbook', '-', ...target], {input: [0, 1, 2, 3, 4].map((i) => JSON.stringify({data: {author: `a${i}`, message: `hello ${i}`}})).join('\n')})
    expect(r.code, r.stderr).toBe(0)

    writeFileSync(join(ws, 'dbs', 'guestbook.json'), guestbook({author: 'string'}))
    // svc push: the plan lines, then the refusal (exit 1), nothing applied.
    r = await svc(['push', ws, '--yes', ...target])
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.stdout).toContain('- field message (text)')
    expect(r.stdout).toContain('! field message (text) holds data in')
    expect(r.stderr).toContain('refusing to drop data: guestbook: field message (text) (')
    expect(r.stderr).toContain('--force')
    expect(r.stdout).not.toContain('Done:')
    // --json: the db change carries the server's plan.
    r = await svc(['push', ws, '--dry-run', '--json', ...target])
    expect(r.json.changes[0]).toMatchObject({kind: 'db', key: 'dbs/guestbook.json', plan: {create: false, data_loss: [{records: 5, text: 'field message (text) (5 records)'}]}})
    // svc db push on the workspace folder reads its dbs/ (not .svc-sync.json) and refuses the same way.
    r = await svc(['db', 'push', ws, '--yes', ...target])
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.stderr).not.toContain('.svc-sync.json')
    expect(r.stderr).toContain('refusing to drop data: guestbook: field message (text) (')
    r = await svc(['db', 'push', join(ws, 'dbs'), '--yes', ...target])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('refusing to drop data: guestbook: field message (text) (')

    // A change without loss through svc db push, then svc push: my own change, not the backend's.
    writeFileSync(join(ws, 'dbs', 'guestbook.json'), guestbook({author: 'string', message: 'text', mood: 'string'}))
    r = await svc(['db', 'push', ws, '--yes', ...target])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain('+ field mood (string)')
    r = await svc(['push', ws, '--yes', ...target])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).not.toContain('changed on the backend')
    expect(r.stdout).toContain('0 to create, 0 to change, 0 to delete, 1 unchanged')

    // --force drops it, with every push command's meaning of the flag.
    writeFileSync(join(ws, 'dbs', 'guestbook.json'), guestbook({author: 'string', mood: 'string'}))
    r = await svc(['push', ws, '--yes', '--force', ...target])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain('Done: 1 change(s) applied.')
  })

  it('svc push refuses a schema change that existing records fail, as svc db push does', async () => {
    const ws = join(tempDir(), 'ws2')
    mkdirSync(join(ws, 'dbs'), {recursive: true})
    writeFileSync(join(ws, 'dbs', 'notes.json'), JSON.stringify({name: 'Notes', code: 'notes', schema: {fields: {title: 'string'}}}))
    expect((await svc(['push', ws, '--yes', ...target])).code).toBe(0)
    expect((await svc(['db', 'import', 'notes', '-', ...target], {input: '{"data":{"title":"x","stars":"many"}}\n'})).code).toBe(0)
    writeFileSync(join(ws, 'dbs', 'notes.json'), JSON.stringify({name: 'Notes', code: 'notes', schema: {fields: {title: 'string', stars: 'integer'}}}))
    const r = await svc(['push', ws, '--yes', ...target])
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.stdout).toContain('! 1 record(s) would fail validation under the new schema:')
    expect(r.stderr).toMatch(/refusing to leave records invalid: notes: 1 record\(s\) would fail validation \(#\d+ stars: must be an integer\)/)
  })
})
