import {describe, expect, it, vi} from 'vitest'
import {createApp} from '../../src/http/app.js'
import {createServices} from '../../src/services/index.js'
import {rawQuery} from '../helpers/pg.js'
import {describeBothTransports, makeCall, type Ctx} from '../helpers/scenarios.js'
import {openApp} from '../helpers/app-origin.js'
import {createWorld, inProcess} from '../helpers/world.js'

// Compiles are slow on a busy 2-core machine.
vi.setConfig({testTimeout: 120_000})

const SVELTE = `<script>
  let count = $state(0)
  let double = $derived(count * 2)
</script>
<button class="p-4 text-red-500" onclick={() => count++}>clicks {count} double {double}</button>
<style>button { font-weight: bold }</style>
`
const VUE = `<script setup>
import {ref} from 'vue'
const n = ref(0)
</script>
<template><button class="m-2" @click="n++">vue {{ n }}</button></template>
<style scoped>button { color: blue }</style>
`
const REACT = `import {useState} from 'react'
export default function App() {
  const [n, setN] = useState(0)
  return <button className="underline" onClick={() => setN(n + 1)}>react {n}</button>
}
`
const KABOOM = `kaboom()\nadd([text("hello"), pos(10, 10)])\n`
const PHASER = `import Phaser from 'phaser'\nnew Phaser.Game({type: Phaser.AUTO, width: 100, height: 100, scene: {create() { this.add.text(1, 1, 'hi') }}})\n`

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const RESPONSE_KEYS = [
  'actions', 'active', 'app_build_time', 'app_engine', 'config', 'created_at', 'created_by_id', 'css_build_time', 'css_engine',
  'db_code', 'description', 'fields', 'id', 'name', 'public', 'show_in_module', 'source_code', 'updated_at', 'updated_by_id', 'url_code',
].sort()

async function create(ctx: Ctx, app: Record<string, unknown>, as = 'admin') {
  const r = await ctx.call('POST', '/svc/apps.json', {body: {app}, as})
  expect(r.status, r.text.slice(0, 400)).toBe(201)
  return r
}

/** Fetches the page of an app (on its own origin, past the hand-over from `/a/`) and the assets it references. */
const page = (ctx: Ctx, path: string, headers: Record<string, string> = {}) => openApp(ctx.transport, path, headers)

const context = (html: string) => JSON.parse(/window\.SvcAppContext = (.*?);<\/script>/.exec(html)![1]!)

describeBothTransports('apps: CRUD, compile, serve', undefined, (ctx) => {
  // Compiles are slow on a busy 2-core machine; each test compiles at most a few apps.
  const ids: Record<string, string> = {}

  it('creates a svelte app: 201, UUID, the spec fields only, build times in ms', async () => {
    const r = await create(ctx(), {name: 'Counter', url_code: 'My Counter!!', app_engine: 'svelte', css_engine: 'tailwind', source_code: SVELTE,
      public: true, description: 'd', db_code: 'shop', show_in_module: 'crm', prompt: 'be nice', dashboard_widget: true,
      fields: {color: 'red'}, actions: [{action: 'save', flow_code: 'save_flow', description: 'Save', public: true}]})
    const app = r.json
    expect(Object.keys(app).sort()).toEqual(RESPONSE_KEYS)
    expect(app.id).toMatch(UUID)
    expect(app).toMatchObject({name: 'Counter', url_code: 'my-counter', app_engine: 'svelte', css_engine: 'tailwind', public: true,
      active: true, db_code: 'shop', show_in_module: 'crm', fields: {color: 'red', dashboard_widget: true}, description: 'd',
      actions: [{action: 'save', flow_code: 'save_flow', description: 'Save', public: true}], updated_by_id: null,
      created_by_id: ctx().world.users.admin!.id})
    expect(Number.isInteger(app.app_build_time) && Number.isInteger(app.css_build_time)).toBe(true)
    expect(app.css_build_time).toBeGreaterThan(0)
    expect(app.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/)
    expect(r.text).not.toMatch(/account_id|app_code|css_code|"token"/)
    expect(r.headers.get('x-svc-build')).toBe('compiled')
    ids.svelte = app.id
  })

  it('serves the public svelte page with a null user, hashed assets with long cache headers, tailwind compiled', async () => {
    const {res, html, js, css} = await page(ctx(), '/a/my-counter')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(context(html)).toEqual({user: null, app: {id: ids.svelte, name: 'Counter', url_code: 'my-counter', db_code: 'shop'}})
    expect(html.indexOf('SvcAppContext')).toBeLessThan(html.indexOf(new URL(js!).pathname))
    expect(html).toContain('<div id="svc-app"></div>')
    expect(html).not.toContain('tailwind-browser')
    const jsRes = await ctx().transport.fetch(js!)
    expect(jsRes.status).toBe(200)
    expect(jsRes.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(await jsRes.text()).toContain('clicks')
    const cssText = await (await ctx().transport.fetch(css!)).text()
    expect(cssText).toContain('.p-4')
    expect(cssText).toContain('.text-red-500')
    expect(cssText).toMatch(/\.p-4\s*\{/)
    for (const unused of ['p-5', 'm-4', 'bg-green-500', 'text-blue-500']) expect(cssText).not.toMatch(new RegExp(`\\.${unused}\\s*\\{`))
    const byId = await page(ctx(), `/a/${ids.svelte}`)
    expect(byId.res.status).toBe(200)
    expect(byId.js).toBe(js)
  })

  it('compiles vue (scoped css) and react; tailwind_all loads the served browser build', async () => {
    const vue = (await create(ctx(), {name: 'Vue one', app_engine: 'vue', css_engine: 'tailwind_all', source_code: VUE, public: true})).json
    expect(vue.url_code).toBe('vue-one')
    const p = await page(ctx(), '/a/vue-one')
    expect(p.html).toMatch(/<script src="\/_svc\/lib\/tailwind-browser\.js\?v=[\d.]+"><\/script>/)
    expect(await (await ctx().transport.fetch(p.css!)).text()).toMatch(/button\[data-v-[0-9a-f]+\]/)
    const react = (await create(ctx(), {name: 'React one', app_engine: 'react', css_engine: 'none', source_code: REACT, public: true})).json
    const r = await page(ctx(), `/a/${react.url_code}`)
    expect(r.html).not.toContain('tailwind')
    expect(r.css).toBeUndefined()
    expect(await (await ctx().transport.fetch(r.js!)).text()).toContain('react ')
    ids.react = react.id
  })

  it('kaboom and phaser import the engine library served once, not bundled', async () => {
    const k = (await create(ctx(), {name: 'Game K', app_engine: 'kaboom', css_engine: 'tailwind_all', source_code: KABOOM, public: true})).json
    const kp = await page(ctx(), `/a/${k.id}`)
    expect(kp.html).not.toContain('tailwind')
    const kjs = await (await ctx().transport.fetch(kp.js!)).text()
    expect(kjs).toMatch(/from"\/_svc\/lib\/kaplay\.mjs\?v=/)
    expect(kjs).toContain('globalThis.kaboom')
    // The game and the prelude bridging the kaboom 2000 API (src/engines/kaboom.ts), never the library (~1 MB).
    expect(kjs.length).toBeLessThan(10_000)
    const ph = (await create(ctx(), {name: 'Game P', app_engine: 'phaser', css_engine: 'none', source_code: PHASER, public: true})).json
    const pjs = await (await ctx().transport.fetch((await page(ctx(), `/a/${ph.id}`)).js!)).text()
    expect(pjs).toMatch(/from"\/_svc\/lib\/phaser\.esm\.min\.js\?v=/)
    expect(pjs.length).toBeLessThan(2000)
    const lib = await ctx().transport.fetch('/_svc/lib/phaser.esm.min.js?v=1')
    expect(lib.status).toBe(200)
    expect(lib.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(lib.headers.get('content-type')).toContain('javascript')
    expect((await ctx().transport.fetch('/_svc/lib/kaplay.mjs')).status).toBe(200)
    expect((await ctx().transport.fetch('/_svc/lib/tailwind-browser.js')).status).toBe(200)
    expect((await ctx().transport.fetch('/_svc/lib/..%2Fpackage.json')).status).toBe(404)
  })

  it('js is a classic script served byte for byte as written, html is used as-is, with the context set first', async () => {
    const source = 'const text = "plain"  // as written\r\ndocument.getElementById("svc-app").textContent = text'
    const created = await create(ctx(), {name: 'Plain', app_engine: 'js', css_engine: 'tailwind_all', public: true, source_code: source})
    expect(created.headers.get('x-svc-warning')).toBeNull()
    const p = await page(ctx(), `/a/${created.json.id}`)
    expect(p.html).toMatch(/<script src="\/app\.[0-9a-f]{16}\.js"><\/script>/)
    expect(await (await ctx().transport.fetch(p.js!)).text()).toBe(source)
    const html = (await create(ctx(), {name: 'Raw', app_engine: 'html', css_engine: 'none', public: true,
      source_code: '<!doctype html><html><head><title>raw</title></head><body><p>raw page</p></body></html>'})).json
    const h = await page(ctx(), `/a/${html.id}`)
    expect(h.html).toMatch(/^<!doctype html><html><head><script>window\.SvcAppContext = .*<\/script><link rel="icon" href="data:,"><title>raw<\/title>/)
    expect(h.html).toContain('<p>raw page</p>')
  })

  // platform-api.md, Engines: js is "not compiled". A source a browser would refuse is saved and served
  // as written (issue 38: it was compiled by esbuild and a syntax error was a 422); svc only warns.
  it('a js source with a syntax error, TypeScript or an import is saved (201) and served as written, with X-Svc-Warning', async () => {
    const cases: [string, RegExp][] = [
      ['const a = 1\nlet total = )\ndocument.body.append("x")\n', /^source_code line 2, column 13: Unexpected token '\)'/],
      ['const n: number = 2\ndocument.body.append(String(n * 21))\n', /^source_code line 1, column 7: /],
      ['const n = 1\nimport confetti from "canvas-confetti"\nconfetti()\n', /^source_code line 2, column 1: Cannot use import statement outside a module/],
    ]
    for (const [source, warning] of cases) {
      const created = await create(ctx(), {name: 'As written', app_engine: 'js', public: true, source_code: source})
      expect(created.headers.get('x-svc-build')).toBe('none')
      expect(created.headers.get('x-svc-warning')).toMatch(warning)
      expect(created.headers.get('x-svc-warning')).toMatch(/served as written/)
      expect(created.json.source_code).toBe(source)
      const got = await ctx().call('GET', `/svc/apps/${created.json.id}.json`)
      expect(got.json.source_code).toBe(source)
      const p = await page(ctx(), `/a/${created.json.id}`)
      expect(await (await ctx().transport.fetch(p.js!)).text()).toBe(source)
      // A PATCH of another field warns again; a fixed source does not.
      const renamed = await ctx().call('PATCH', `/svc/apps/${created.json.id}.json`, {body: {app: {name: 'Renamed'}}})
      expect(renamed.status).toBe(200)
      expect(renamed.headers.get('x-svc-warning')).toMatch(warning)
      const fixed = await ctx().call('PATCH', `/svc/apps/${created.json.id}.json`, {body: {app: {source_code: 'document.body.append("ok")'}}})
      expect(fixed.status).toBe(200)
      expect(fixed.headers.get('x-svc-warning')).toBeNull()
    }
  })

  it('a compile error is a 422 under source_code with line and column, per engine', async () => {
    const cases: [string, string][] = [
      ['svelte', '<script>\nlet x = $state(0\n</script>'],
      ['vue', '<template>\n  <div>\n</template>'],
      ['react', 'export default function A() {\n  return <div>\n}'],
      ['phaser', 'new Phaser.Game({})\nlet x = ('],
      ['kaboom', 'kaboom()\nadd([text("hi")\n'],
    ]
    for (const [engine, source] of cases) {
      const r = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'bad', app_engine: engine, css_engine: 'none', source_code: source}}})
      expect(r.status, engine).toBe(422)
      expect(Object.keys(r.json)).toEqual(['source_code'])
      expect(r.json.source_code[0], engine).toMatch(/^line \d+, column \d+: /)
    }
    const escape = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'bad', app_engine: 'react', css_engine: 'none',
      source_code: "import secret from '/etc/passwd?raw'\nexport default () => secret"}}})
    expect(escape.status).toBe(422)
    expect(escape.text).not.toContain('root:')
  })

  it('validates every field', async () => {
    const bad = async (app: Record<string, unknown>, field: string) => {
      const r = await ctx().call('POST', '/svc/apps.json', {body: {app}})
      expect(r.status, JSON.stringify(app).slice(0, 80)).toBe(422)
      expect(r.json[field], r.text).toEqual([expect.any(String)])
    }
    const ok = {name: 'x', app_engine: 'js', css_engine: 'none', source_code: 'x'}
    await bad({...ok, name: '  '}, 'name')
    await bad({app_engine: 'js', source_code: 'x'}, 'name')
    await bad({...ok, app_engine: 'angular'}, 'app_engine')
    await bad({...ok, css_engine: 'bootstrap'}, 'css_engine')
    await bad({...ok, source_code: ''}, 'source_code')
    await bad({...ok, source_code: 'x'.repeat(200_001)}, 'source_code')
    await bad({...ok, show_in_module: 'games'}, 'show_in_module')
    await bad({...ok, url_code: '!!!'}, 'url_code')
    await bad({...ok, public: 'yes'}, 'public')
    await bad({...ok, fields: [1]}, 'fields')
    await bad({...ok, actions: [{action: 'bad name', flow_code: 'f'}]}, 'actions')
    await bad({...ok, actions: [{action: 'a', flow_code: ''}]}, 'actions')
    await bad({...ok, actions: {}}, 'actions')
    await bad({...ok, url_code: 'my-counter'}, 'url_code')
    const blank = await ctx().call('POST', '/svc/apps.json', {body: {app: {}}})
    expect(blank.status).toBe(422)
    expect(Object.keys(blank.json).sort()).toEqual(['name', 'source_code'])
    expect((await ctx().call('POST', '/svc/apps.json', {rawBody: '{bad'})).status).toBe(400)
    const max = await ctx().call('POST', '/svc/apps.json', {body: {app: {...ok, source_code: 'y'.repeat(200_000), show_in_module: 'tasks/show'}}})
    expect(max.status).toBe(201)
    expect(max.json.show_in_module).toBe('tasks/show')
    expect(max.json.css_engine).toBe('none')
    // The limit counts characters: 200000 emoji (400000 UTF-16 units) pass, one more does not.
    // (A js app compiles: the emoji are in a comment.)
    const emoji = await ctx().call('POST', '/svc/apps.json', {body: {app: {...ok, source_code: '//' + '😀'.repeat(199_998)}}})
    expect(emoji.status, emoji.text.slice(0, 200)).toBe(201)
    await bad({...ok, source_code: '//' + '😀'.repeat(199_999)}, 'source_code')
    const defaults = (await create(ctx(), {name: 'Zażółć gęślą', source_code: '<p>hi</p>'})).json
    expect(defaults).toMatchObject({app_engine: 'svelte', css_engine: 'tailwind_all', public: false, active: true, url_code: 'zazolc-gesla',
      db_code: null, show_in_module: null, actions: [], fields: {}})
    const again = (await create(ctx(), {name: 'Zażółć gęślą', app_engine: 'js', source_code: 'x'})).json
    expect(again.url_code).toBe('zazolc-gesla-2')
    ids.private = defaults.id
  })

  it('the schema names every problem in one 422, with the wording of today; an envelope that is not an object is a 400', async () => {
    const r = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 5, source_code: null, public: 'maybe', fields: [1],
      url_code: '0b5f6a3c-8d9e-4f10-9a2b-3c4d5e6f7a8b', actions: [{action: 'a', flow_code: 'x'}, {action: 'a', flow_code: 'y'}]}}})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({name: ['must be a string'], source_code: ["can't be blank"], public: ['must be true or false'],
      fields: ['must be an object'], url_code: ['cannot have the form of an app id'], actions: ['actions[1].action "a" is declared twice']})
    for (const app of [5, null, []]) {
      const bad = await ctx().call('POST', '/svc/apps.json', {body: {app}})
      expect(bad.status).toBe(400)
      expect(bad.json).toEqual({error: '"app" must be an object'})
    }
    const flags = await ctx().call('PATCH', `/svc/apps/${ids.svelte}.json`, {body: {app: {app_engine: 5, show_in_module: 'games', public: '1'}}})
    expect(flags.json).toEqual({app_engine: ['is not included in the list (svelte, vue, react, js, html, kaboom, phaser)'],
      show_in_module: [expect.stringMatching(/^is not included in the list \(organize, /)]})
    const replace = await ctx().call('PATCH', `/svc/apps/${ids.svelte}/replace.json`, {body: {field: 'name', new: 5, replace_all: 'yes'}})
    expect(replace.json).toEqual({field: ['must be one of source_code, fields, prompt'], old_string: ["can't be blank"],
      new_string: ['is required (a string, may be empty)'], replace_all: ['must be true or false']})
    expect((await ctx().call('GET', '/svc/apps.json?active=maybe')).json).toEqual({error: 'active must be true or false'})
  })

  it('PATCH answers 200 with the full object; fields keys are kept beside dashboard_widget', async () => {
    const r = await ctx().call('PATCH', `/svc/apps/${ids.svelte}.json`, {body: {app: {dashboard_widget: false, description: 'new'}}})
    expect(r.status).toBe(200)
    expect(Object.keys(r.json).sort()).toEqual(RESPONSE_KEYS)
    expect(r.json).toMatchObject({description: 'new', fields: {color: 'red', dashboard_widget: false}, updated_by_id: ctx().world.users.admin!.id})
    expect(r.headers.get('x-svc-build')).toBe('unchanged')
    const bad = await ctx().call('PATCH', `/svc/apps/${ids.svelte}.json`, {body: {app: {app_engine: 'flash', name: ''}}})
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.json).sort()).toEqual(['app_engine', 'name'])
    const list = await ctx().call('GET', '/svc/apps.json')
    expect(list.status).toBe(200)
    expect(Array.isArray(list.json)).toBe(true)
    expect(list.json.map((a: {id: string}) => a.id)).toContain(ids.svelte)
    expect((await ctx().call('GET', '/svc/apps.json?q=counter')).json).toHaveLength(1)
  })

  it('the same input never compiles twice: a second app with the same source comes from the cache', async () => {
    const r = await create(ctx(), {name: 'Counter copy', app_engine: 'svelte', css_engine: 'tailwind', source_code: SVELTE})
    expect(r.headers.get('x-svc-build')).toBe('cached')
    const first = (await ctx().call('GET', `/svc/apps/${ids.svelte}.json`)).json
    expect(r.json.config.build_hash).toBe(first.config.build_hash)
    expect(r.json.app_build_time).toBe(first.app_build_time)
  })

  it('private apps need a signed-in user of the account; inactive apps are 404', async () => {
    const anon = await page(ctx(), '/a/zazolc-gesla')
    expect(anon.res.status).toBe(302)
    expect(anon.res.headers.get('location')).toBe('/svc/login?next=%2Fa%2Fzazolc-gesla')
    const login = await ctx().transport.fetch('/svc/login?next=%2Fa%2Fzazolc-gesla')
    expect(await login.text()).toContain('name="token"')
    const wrong = await ctx().transport.fetch('/svc/login', {method: 'POST', redirect: 'manual',
      headers: {'content-type': 'application/x-www-form-urlencoded', origin: ctx().transport.origin},
      body: 'token=nope&next=%2Fa%2Fzazolc-gesla'})
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('set-cookie')).toBeNull()
    const signIn = async (login: string) => {
      const res = await ctx().transport.fetch('/svc/login', {method: 'POST', redirect: 'manual',
        headers: {'content-type': 'application/x-www-form-urlencoded', origin: ctx().transport.origin},
        body: new URLSearchParams({token: ctx().world.users[login]!.token, next: '/a/zazolc-gesla'}).toString()})
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toBe('/a/zazolc-gesla')
      const cookie = res.headers.get('set-cookie')!
      expect(cookie).toMatch(/^svc_session=[^;]+;.*HttpOnly/)
      expect(cookie).not.toContain(ctx().world.users[login]!.token)
      return cookie.split(';')[0]!
    }
    const alice = await signIn('alice')
    const seen = await page(ctx(), '/a/zazolc-gesla', {cookie: alice})
    expect(seen.res.status).toBe(200)
    expect(seen.res.headers.get('cache-control')).toBe('private, no-cache')
    expect(context(seen.html).user).toEqual({login: 'alice', email: '', name: 'alice', role: 'user', team_ids: [], group_ids: [],
      department_ids: [], team_names: [], group_names: [], department_names: []})
    const jsRes = await ctx().transport.fetch(seen.js!, {headers: {cookie: seen.cookie}})
    expect(jsRes.status).toBe(200)
    expect(jsRes.headers.get('cache-control')).toBe('private, max-age=31536000, immutable')
    expect((await ctx().transport.fetch(seen.js!)).status).toBe(404)
    const mallory = await signIn('mallory')
    expect((await page(ctx(), '/a/zazolc-gesla', {cookie: mallory})).res.status).toBe(302)
    expect((await page(ctx(), `/a/${ids.private}`, {cookie: mallory})).res.status).toBe(302)
    const publicSeen = await page(ctx(), '/a/my-counter', {cookie: mallory})
    expect(context(publicSeen.html).user).toBeNull()
    const evil = await ctx().transport.fetch('/svc/login', {method: 'POST', redirect: 'manual',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({token: ctx().world.users.alice!.token, next: '//evil.example/x'}).toString()})
    expect(evil.headers.get('location')).toBe('/')
    await ctx().call('PATCH', `/svc/apps/${ids.private}.json`, {body: {app: {active: false}}})
    expect((await page(ctx(), '/a/zazolc-gesla', {cookie: alice})).res.status).toBe(404)
    expect((await page(ctx(), '/a/no-such-app')).res.status).toBe(404)
  })

  it('replace edits source_code (recompiling), fields and prompt; errors per decisions.md', async () => {
    const before = (await ctx().call('GET', `/svc/apps/${ids.react}.json`)).json
    const r = await ctx().call('PATCH', `/svc/apps/${ids.react}/replace.json`, {body: {field: 'source_code', old_string: 'react {n}', new_string: 'clicked {n}'}})
    expect(r.status, r.text).toBe(200)
    expect(r.headers.get('x-svc-build')).toBe('compiled')
    expect(r.json.source_code).toContain('clicked {n}')
    expect(r.json.config.build_hash).not.toBe(before.config.build_hash)
    const p = await page(ctx(), `/a/${ids.react}`)
    expect(await (await ctx().transport.fetch(p.js!)).text()).toContain('clicked ')
    const short = await ctx().call('PATCH', `/svc/apps/${ids.react}/replace.json`, {body: {field: 'source_code', old: 'clicked', new: 'pressed'}})
    expect(short.status).toBe(200)
    expect(short.json.source_code).toContain('pressed {n}')
    const missing = await ctx().call('PATCH', `/svc/apps/${ids.react}/replace.json`, {body: {field: 'source_code', old_string: 'nothing here', new_string: 'x'}})
    expect(missing.status).toBe(422)
    expect(missing.json).toEqual({old_string: ['not found']})
    const many = await ctx().call('PATCH', `/svc/apps/${ids.react}/replace.json`, {body: {field: 'source_code', old_string: 'n', new_string: 'n'}})
    expect(many.json.old_string[0]).toMatch(/^matches \d+ places; send replace_all$/)
    const broken = await ctx().call('PATCH', `/svc/apps/${ids.react}/replace.json`, {body: {field: 'source_code', old_string: '</button>', new_string: '</div>'}})
    expect(broken.status).toBe(422)
    expect(broken.json.source_code[0]).toMatch(/^line \d+, column \d+/)
    const badField = await ctx().call('PATCH', `/svc/apps/${ids.react}/replace.json`, {body: {field: 'name', old_string: 'a', new_string: 'b'}})
    expect(badField.json.field).toBeDefined()
    const fields = await ctx().call('PATCH', `/svc/apps/${ids.svelte}/replace.json`, {body: {field: 'fields', old_string: '"red"', new_string: '"green"'}})
    expect(fields.status).toBe(200)
    expect(fields.json.fields).toEqual({color: 'green', dashboard_widget: false})
    const badJson = await ctx().call('PATCH', `/svc/apps/${ids.svelte}/replace.json`, {body: {field: 'fields', old_string: '"green"', new_string: 'green'}})
    expect(badJson.status).toBe(422)
    expect(badJson.json.fields).toBeDefined()
    const prompt = await ctx().call('PATCH', `/svc/apps/${ids.svelte}/replace.json`, {body: {field: 'prompt', old_string: 'nice', new_string: 'kind', replace_all: true}})
    expect(prompt.status).toBe(200)
    expect(prompt.headers.get('x-svc-build')).toBe('unchanged')
  })

  it('other accounts see 404; anonymous 401; guests cannot write; DELETE answers 204', async () => {
    for (const [method, path] of [['GET', `/svc/apps/${ids.svelte}.json`], ['PATCH', `/svc/apps/${ids.svelte}.json`],
      ['DELETE', `/svc/apps/${ids.svelte}.json`], ['PATCH', `/svc/apps/${ids.svelte}/replace.json`]] as const) {
      const body = method === 'PATCH' ? {app: {name: 'x'}, field: 'prompt', old: 'a', new: 'b'} : undefined
      const r = await ctx().call(method, path, {as: 'mallory', body})
      expect(r.status, `${method} ${path}`).toBe(404)
    }
    expect((await ctx().call('GET', '/svc/apps.json', {as: 'mallory'})).json).toEqual([])
    expect((await ctx().call('GET', '/svc/apps.json', {as: null})).status).toBe(401)
    expect((await ctx().call('GET', '/svc/apps/not-a-uuid.json')).status).toBe(404)
    const del = await ctx().call('DELETE', `/svc/apps/${ids.react}.json`)
    expect(del.status).toBe(204)
    expect(del.text).toBe('')
    expect((await ctx().call('GET', `/svc/apps/${ids.react}.json`)).status).toBe(404)
    expect((await page(ctx(), `/a/${ids.react}`)).res.status).toBe(404)
  })
})

describe('apps: the compile cache outlives the process', () => {
  it('a new store over the same data dir answers the same input from the cache', async () => {
    const world = await createWorld()
    try {
      const body = {app: {name: 'k', app_engine: 'kaboom', css_engine: 'none', source_code: KABOOM}}
      const first = await makeCall(world, inProcess(world.app))('POST', '/svc/apps.json', {body})
      expect(first.headers.get('x-svc-build')).toBe('compiled')
      const store = await world.reopen()
      try {
        const restarted = createApp({store, services: createServices(store), systemPromptsDirs: []})
        const again = await makeCall(world, inProcess(restarted))('POST', '/svc/apps.json', {body: {app: {...body.app, name: 'k2'}}})
        expect(again.status).toBe(201)
        expect(again.headers.get('x-svc-build')).toBe('cached')
      } finally {
        await store.close()
      }
    } finally {
      await world.close()
    }
  })
})

describeBothTransports('apps: guests', {accounts: ['acme'], users: [{login: 'gus', role: 'guest'}]}, (ctx) => {
  it('a guest cannot create apps (403) but may list them', async () => {
    const r = await ctx().call('POST', '/svc/apps.json', {as: 'gus', body: {app: {name: 'x', app_engine: 'js', source_code: 'x'}}})
    expect(r.status).toBe(403)
    expect((await ctx().call('GET', '/svc/apps.json', {as: 'gus'})).status).toBe(200)
  })
})

describe('apps: a compiler upgrade (stale build hash)', () => {
  it('a write of other fields recompiles an unchanged source, and keeps the stored build when that source no longer compiles', async () => {
    const world = await createWorld()
    try {
      const call = makeCall(world, inProcess(world.app))
      const ok = (await call('POST', '/svc/apps.json', {body: {app: {name: 'ok', app_engine: 'kaboom', css_engine: 'none', source_code: KABOOM, public: true}}})).json
      const kept = (await call('POST', '/svc/apps.json', {body: {app: {name: 'kept', app_engine: 'kaboom', css_engine: 'none', source_code: KABOOM + '//x\n', public: true}}})).json
      // As if the compilers changed since: the stored hash no longer matches; `kept` also no longer compiles.
      await rawQuery(world, "UPDATE apps SET build_hash = '0123456789abcdef' || substr(build_hash, 17) WHERE id IN (?, ?)", [ok.id, kept.id])
      await rawQuery(world, "UPDATE apps SET source_code = 'kaboom(\n  add([' WHERE id = ?", [kept.id])
      const recompiled = await call('PATCH', `/svc/apps/${ok.id}.json`, {body: {app: {description: 'after upgrade'}}})
      expect(recompiled.status).toBe(200)
      expect(recompiled.headers.get('x-svc-build')).toBe('cached')
      expect(recompiled.json.config.build_hash).toBe(ok.config.build_hash)
      const stale = await call('PATCH', `/svc/apps/${kept.id}.json`, {body: {app: {description: 'still served'}}})
      expect(stale.status, stale.text).toBe(200)
      expect(stale.headers.get('x-svc-build')).toBe('unchanged')
      expect(stale.json.description).toBe('still served')
      const page = await openApp(inProcess(world.app), `/a/${kept.id}`)
      expect(page.res.status).toBe(200)
      const broken = await call('PATCH', `/svc/apps/${kept.id}.json`, {body: {app: {source_code: 'kaboom(\n  add([ '}}})
      expect(broken.status).toBe(422)
      expect(broken.json.source_code[0]).toMatch(/^line \d+, column \d+/)
    } finally {
      await world.close()
    }
  })
})
