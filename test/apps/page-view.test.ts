import {expect, it, vi} from 'vitest'
import {openApp} from '../helpers/app-origin.js'
import {describeBothTransports} from '../helpers/scenarios.js'

// Counts every call of the compiler while keeping its real behaviour.
const calls = vi.hoisted(() => ({compile: 0}))
vi.mock('../../src/compile/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/compile/index.js')>()
  return {
    ...real,
    compileApp: (...args: Parameters<typeof real.compileApp>) => {
      calls.compile++
      return real.compileApp(...args)
    },
  }
})

vi.setConfig({testTimeout: 120_000})

const SOURCE = `<script>let n = $state(0)</script>\n<button class="p-4" onclick={() => n++}>n {n}</button>\n`

describeBothTransports('apps: a page view never compiles', undefined, (ctx) => {
  it('viewing the page and its assets, and a PATCH that keeps the source, call no compiler', async () => {
    const before = calls.compile
    const created = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Viewed', app_engine: 'svelte', css_engine: 'tailwind',
      source_code: SOURCE + `<!-- ${ctx().transport.origin} -->`, public: true}}})
    expect(created.status, created.text).toBe(201)
    expect(calls.compile).toBe(before + 1)
    for (let i = 0; i < 3; i++) {
      // The page lives on the app's own origin (`/a/` hands over): openApp follows it there.
      const page = await openApp(ctx().transport, `/a/${created.json.url_code}`)
      expect(page.res.status).toBe(200)
      expect(page.js).toBeDefined()
      for (const asset of [page.js, page.css].filter((a): a is string => !!a)) {
        expect((await ctx().transport.fetch(asset)).status).toBe(200)
      }
      expect((await openApp(ctx().transport, `/a/${created.json.id}`)).res.status).toBe(200)
    }
    const patched = await ctx().call('PATCH', `/svc/apps/${created.json.id}.json`, {body: {app: {description: 'only text'}}})
    expect(patched.headers.get('x-svc-build')).toBe('unchanged')
    expect(calls.compile).toBe(before + 1)
  })
})
