// Hostile Liquid templates hit the render limits (time, memory, no prototype access) with a clear
// 4xx while the server keeps answering; public writes are rate-limited (429 with Retry-After).
import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

const SEED = {accounts: ['acme'], users: [{login: 'admin', role: 'admin' as const}]}

const HOSTILE: [string, string][] = [
  ['nested loops', '{% for i in (1..100000) %}{% for j in (1..100000) %}x{% endfor %}{% endfor %}'],
  ['doubling string', '{% assign s = "xxxxxxxxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}'],
  ['huge range', '{% for i in (1..999999999) %}{{ i }}{% endfor %}'],
  ['doubling capture', '{% assign a = "xxxxxxxx" %}{% for i in (1..40) %}{% capture a %}{{ a }}{{ a }}{% endcapture %}{% endfor %}{{ a | size }}'],
]

describeBothTransports('render limits and rate limits', SEED, (ctx) => {
  it('hostile templates end in a clear 422 and the server keeps answering', async () => {
    for (const [name, content] of HOSTILE) {
      const code = name.replace(/\W+/g, '_')
      const created = await ctx().call('POST', '/svc/prompts.json', {body: {prompt: {name, code, content}}})
      expect(created.status, created.text).toBe(201)
      const r = await ctx().call('GET', `/svc/prompt/${code}.md`)
      expect(r.status, `${name}: ${r.text.slice(0, 200)}`).toBe(422)
      expect(r.json.content[0], name).toMatch(/limit|exceeded|too/i)
      expect((await ctx().call('GET', '/svc/me.json')).status).toBe(200)
    }
  }, 120_000)

  it('templates cannot reach prototypes, constructors or the process', async () => {
    const content = '[{{ x.constructor }}][{{ "a".constructor.name }}][{{ __proto__ }}][{{ x.__proto__.toString }}][{{ process.env.HOME }}][{{ global }}]'
    await ctx().call('POST', '/svc/prompts.json', {body: {prompt: {name: 'proto', code: 'proto_probe', content}}})
    const r = await ctx().call('GET', '/svc/prompt/proto_probe.md?x=1')
    expect(r.status).toBe(200)
    expect(r.text).toBe('[][][][][][]')
    // An ordinary capture still works under the bounded capture tag.
    await ctx().call('POST', '/svc/prompts.json', {body: {prompt: {name: 'cap', code: 'capture_ok', content: '{% capture g %}Hi {{ who }}{% endcapture %}{{ g }}!'}}})
    expect((await ctx().call('GET', '/svc/prompt/capture_ok.md?who=Ada')).text).toBe('Hi Ada!')
  })

  it('a template over the size limit is refused on create', async () => {
    const r = await ctx().call('POST', '/svc/prompts.json', {body: {prompt: {name: 'big', code: 'big', content: 'x'.repeat(200_001)}}})
    expect(r.status).toBe(422)
    expect(r.json.content).toBeDefined()
  })

  it('public actions are rate-limited per client address', async () => {
    const flow = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: 'ping', fields: {program: [{type: 'mutation', set: {ok: true}}]}}}})
    expect(flow.status, flow.text).toBe(201)
    const app = await ctx().call('POST', '/svc/apps.json', {body: {app: {
      name: 'Open', url_code: 'open', app_engine: 'html', css_engine: 'none', public: true, source_code: '<p>hi</p>',
      actions: [{action: 'ping', flow_code: 'ping', public: true}],
    }}})
    expect(app.status, app.text).toBe(201)
    const statuses: number[] = []
    let last
    for (let i = 0; i < 40 && !statuses.includes(429); i++) {
      last = await ctx().call('POST', `/svc/apps/${app.json.id}/action/ping`, {as: null, body: {}})
      statuses.push(last.status)
    }
    expect(statuses.slice(0, 30).every((s) => s === 200), statuses.join(',')).toBe(true)
    expect(statuses).toContain(429)
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0)
  })
})

describeBothTransports('public db writes', SEED, (ctx) => {
  it('are rate-limited per visitor (SVC_DB_PUBLIC_WRITES, default 120 a minute)', async () => {
    const db = await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'Guestbook', code: 'guestbook', public_methods: {create: true}}}})
    expect(db.status, db.text).toBe(201)
    const statuses: number[] = []
    for (let i = 0; i < 130 && !statuses.includes(429); i++) {
      statuses.push((await ctx().call('POST', '/svc/db/guestbook/create', {as: null, body: {data: {n: i}}})).status)
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(120)
    expect(statuses.at(-1)).toBe(429)
    // Nothing beyond the limit was written.
    const records = await ctx().call('GET', `/svc/dbs/${db.json.id}.json`)
    expect(records.json.records_count).toBe(120)
  })
})
