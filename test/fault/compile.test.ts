// A compile that fails is a clear 422 and changes nothing: the app keeps its source, its build and
// the page it serves, through update and replace alike.
import {expect, it, vi} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

vi.setConfig({testTimeout: 90_000})

const GOOD = `<script>\n  let n = $state(0)\n</script>\n<button onclick={() => n++}>count {n}</button>\n`
const BROKEN = `<script>\n  let n = $state(0\n</script>\n<button>{n</button>\n`

describeBothTransports('a failing compile', undefined, (ctx) => {
  it('answers 422 with line and column and leaves the app, its build and its page untouched', async () => {
    const created = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Counter', url_code: 'counter', app_engine: 'svelte', css_engine: 'none', public: true, source_code: GOOD}}})
    expect(created.status, created.text).toBe(201)
    const id = created.json.id
    const pageBefore = await ctx().call('GET', '/a/counter', {as: null})
    expect(pageBefore.status).toBe(200)

    const update = await ctx().call('PATCH', `/svc/apps/${id}.json`, {body: {app: {source_code: BROKEN, name: 'Renamed'}}})
    expect(update.status).toBe(422)
    expect(update.json.source_code[0]).toMatch(/^line \d+, column \d+: /)
    const replace = await ctx().call('PATCH', `/svc/apps/${id}/replace.json`, {body: {field: 'source_code', old_string: 'count {n}', new_string: 'count {n'}})
    expect(replace.status).toBe(422)

    const after = await ctx().call('GET', `/svc/apps/${id}.json`)
    expect(after.json.source_code).toBe(GOOD)
    expect(after.json.name).toBe('Counter')
    expect(after.json.updated_at).toBe(created.json.updated_at)
    const pageAfter = await ctx().call('GET', '/a/counter', {as: null})
    expect(pageAfter.text).toBe(pageBefore.text)
  })
})
