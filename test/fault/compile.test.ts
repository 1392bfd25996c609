// A compile that fails is a clear 422 and changes nothing: the app keeps its source, its build and
// the page it serves, through update and replace alike.
import {openApp} from '../helpers/app-origin.js'
import {expect, it, vi} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

// Each crash starts a fresh compile worker (under the TypeScript sources, tsx loads Vite again): generous on a loaded machine.
vi.setConfig({testTimeout: 300_000})

const GOOD = `<script>\n  let n = $state(0)\n</script>\n<button onclick={() => n++}>count {n}</button>\n`
const BROKEN = `<script>\n  let n = $state(0\n</script>\n<button>{n</button>\n`

describeBothTransports('a failing compile', undefined, (ctx) => {
  it('answers 422 with line and column and leaves the app, its build and its page untouched', async () => {
    const created = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Counter', url_code: 'counter', app_engine: 'svelte', css_engine: 'none', public: true, source_code: GOOD}}})
    expect(created.status, created.text).toBe(201)
    const id = created.json.id
    // The page lives on the app's own origin (`/a/` hands over): openApp follows it there.
    const pageBefore = await openApp(ctx().transport, '/a/counter')
    expect(pageBefore.res.status).toBe(200)

    const update = await ctx().call('PATCH', `/svc/apps/${id}.json`, {body: {app: {source_code: BROKEN, name: 'Renamed'}}})
    expect(update.status).toBe(422)
    expect(update.json.source_code[0]).toMatch(/^line \d+, column \d+: /)
    const replace = await ctx().call('PATCH', `/svc/apps/${id}/replace.json`, {body: {field: 'source_code', old_string: 'count {n}', new_string: 'count {n'}})
    expect(replace.status).toBe(422)

    const after = await ctx().call('GET', `/svc/apps/${id}.json`)
    expect(after.json.source_code).toBe(GOOD)
    expect(after.json.name).toBe('Counter')
    expect(after.json.updated_at).toBe(created.json.updated_at)
    const pageAfter = await openApp(ctx().transport, '/a/counter')
    expect(pageAfter.html).toBe(pageBefore.html)
  })
})

// Issue 16 item 1: a compiler crash (rolldown's native stack overflow is a SIGSEGV) used to kill
// the whole server. Compiles now run in worker processes: the crash is a 422 and the next compile works.
const deepJsx = (depth: number) => `export default function App() {\n  return ${'<div>'.repeat(depth)}x${'</div>'.repeat(depth)}\n}\n`
const deepParens = (depth: number) => `export default function App() {\n  const x = ${'('.repeat(depth)}1${')'.repeat(depth)}\n  return <p>{x}</p>\n}\n`

describeBothTransports('a compiler that crashes or overruns', undefined, (ctx) => {
  it('answers 422 for deeply nested JSX and parentheses, keeps the server up, and compiles the next app', async () => {
    for (const [name, source] of [['deep-jsx', deepJsx(1500)], ['deep-parens', deepParens(3000)]] as const) {
      const r = await ctx().call('POST', '/svc/apps.json', {body: {app: {name, app_engine: 'react', css_engine: 'none', source_code: source}}})
      expect(r.status, r.text).toBe(422)
      expect(r.json.source_code[0]).toMatch(/compiler|nest|deep|stack|Maximum/i)
      expect(r.text).not.toMatch(/\/tmp\/|svc-build-|node_modules/)
    }
    const me = await ctx().call('GET', '/svc/me.json')
    expect(me.status).toBe(200)
    const ok = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'fine', app_engine: 'react', css_engine: 'none', source_code: deepJsx(3)}}})
    expect(ok.status, ok.text).toBe(201)
    expect(ok.json.id).toEqual(expect.any(String))
  })
})

// Issue 16 item 6: import.meta.glob gave a 422 that named files of the server. Every import form
// that reads the file system is refused before expansion, and the message names no server path.
describeBothTransports('imports that would read the file system', undefined, (ctx) => {
  const cases: [string, string, string][] = [
    ['svelte', 'App.svelte', `<script>\n  const files = import.meta.glob('../../../../**/*.json', {eager: true})\n</script>\n<p>{Object.keys(files).length}</p>\n`],
    ['svelte', 'App.svelte', `<script>\n  const files = import.meta.glob(['/etc/*', '/root/**'], {query: '?raw', eager: true})\n</script>\n<p>{Object.keys(files).join()}</p>\n`],
    ['react', 'App.jsx', `const name = 'pass' + 'wd'\nconst m = import(\`../../../../etc/\${name}\`)\nexport default function App() { return <p>{String(m)}</p> }\n`],
    ['react', 'App.jsx', `const u = new URL('../../../../etc/hostname', import.meta.url)\nexport default function App() { return <p>{u.href}</p> }\n`],
    ['vue', 'App.vue', `<script setup>\nconst files = import.meta.glob('/**/*.ts', {eager: true})\n</script>\n<template><p>{{ Object.keys(files).length }}</p></template>\n`],
  ]
  it('refuses import.meta.glob, import() of a template and import.meta.url with a 422 that names no server file', async () => {
    for (const [engine, , source] of cases) {
      const r = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: `fs-${engine}`, app_engine: engine, css_engine: 'none', source_code: source}}})
      expect(r.status, r.text).toBe(422)
      expect(r.json.source_code[0]).toMatch(/not allowed|fixed string/)
      expect(r.text).not.toMatch(/\/tmp|\/work|\/etc\/|\/root|node_modules|svc-build-|\.json"|package/)
    }
  })
})
