import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'
import {tempDir, type Seed} from '../helpers/world.js'

/** Teams red (id 1) and blue (id 2); departments north (1) and south (2). */
export const PROMPT_SEED: Seed = {
  accounts: ['acme', 'other'],
  users: [
    {login: 'admin', role: 'admin', teams: ['red'], department: 'north'},
    {login: 'alice', role: 'user', teams: ['blue', 'red'], department: 'north'},
    {login: 'bob', role: 'user', teams: ['blue'], department: 'south'},
    {login: 'carol', role: 'user'},
    {login: 'mallory', account: 'other', role: 'admin'},
  ],
}

const prompt = (p: Record<string, unknown>) => ({body: {prompt: p}})

describeBothTransports('prompts: CRUD, validation, visibility', PROMPT_SEED, (ctx) => {
  let accountPromptId = ''
  let alicePromptId = ''
  let redPromptId = ''

  it('refuses an anonymous caller with 401', async () => {
    const r = await ctx().call('GET', '/svc/prompts.json', {as: null})
    expect(r.status).toBe(401)
    expect(r.headers.get('www-authenticate')).toBe('Bearer')
  })

  it('422 lists every missing required field', async () => {
    const r = await ctx().call('POST', '/svc/prompts.json', {as: 'alice', ...prompt({kind: 'robot', scope: 'world'})})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({
      name: ["can't be blank"], code: ["can't be blank"], content: ["can't be blank"],
      kind: ['must be chat or agent'], scope: ['must be one of user, team, department, account'],
    })
  })

  it('422 for a bad code, a non-string, bad Liquid and a team or department the user is not in', async () => {
    const c = ctx()
    let r = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...prompt({name: 'x', code: '../etc', content: 'x'})})
    expect(r.status).toBe(422)
    expect(r.json.code).toEqual(['may contain only letters, digits, _ and -'])
    r = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...prompt({name: 5, code: 'a', content: '{% if %}'})})
    expect(r.status).toBe(422)
    expect(r.json.name).toEqual(['must be a string'])
    expect(r.json.content[0]).toMatch(/^is not a valid Liquid template/)
    const bob = c.world.users.bob!
    r = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...prompt({name: 'x', code: 'a', content: 'x', scope: 'department', scope_id: bob.departmentIds[0]})})
    expect(r.json).toEqual({scope_id: ['is not your department']})
    r = await c.call('POST', '/svc/prompts.json', {as: 'bob', ...prompt({name: 'x', code: 'a', content: 'x', scope: 'team', scope_id: c.world.users.admin!.teamIds[0]})})
    expect(r.json).toEqual({scope_id: ['is not one of your teams']})
    r = await c.call('POST', '/svc/prompts.json', {as: 'bob', ...prompt({name: 'x', code: 'a', content: 'x', scope: 'user', scope_id: c.world.users.alice!.id})})
    expect(r.json).toEqual({scope_id: ['must be your own user id for scope user']})
    r = await c.call('POST', '/svc/prompts.json', {as: 'bob', ...prompt({name: 'x', code: 'a', content: 'x', scope_id: 3})})
    expect(r.json).toEqual({scope_id: ['must be empty for scope account']})
    r = await c.call('POST', '/svc/prompts.json', {as: 'bob', rawBody: '{"prompt": '})
    expect(r.status).toBe(400)
  })

  it('POST answers 201 with the full object, defaults applied, never the token', async () => {
    const r = await ctx().call('POST', '/svc/prompts.json', {
      as: 'alice', ...prompt({name: 'Greeting', code: 'greet', content: 'Hello from account', ai_placeholder: 'Ask me'}),
    })
    expect(r.status).toBe(201)
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(r.json).toMatchObject({
      name: 'Greeting', code: 'greet', content: 'Hello from account', kind: 'chat', scope: 'account', scope_id: null,
      fields: {ai_placeholder: 'Ask me'}, ai_placeholder: 'Ask me', created_by_id: ctx().world.users.alice!.id,
    })
    expect(r.json.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(r.json).not.toHaveProperty('token')
    expect(r.json.created_at).toEqual(expect.any(String))
    accountPromptId = r.json.id
  })

  it('a repeated (scope, scope_id, code) is a 422 under code; another scope is fine', async () => {
    const c = ctx()
    let r = await c.call('POST', '/svc/prompts.json', {as: 'bob', ...prompt({name: 'Again', code: 'greet', content: 'x'})})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({code: ['has already been taken']})
    r = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...prompt({name: 'Mine', code: 'greet', content: 'Hello {{ name }} from alice', scope: 'user', kind: 'agent'})})
    expect(r.status).toBe(201)
    expect(r.json).toMatchObject({scope: 'user', scope_id: c.world.users.alice!.id, kind: 'agent'})
    alicePromptId = r.json.id
    r = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...prompt({name: 'Mine', code: 'greet', content: 'x', scope: 'user'})})
    expect(r.json).toEqual({code: ['has already been taken']})
    r = await c.call('POST', '/svc/prompts.json', {as: 'admin', ...prompt({name: 'Red', code: 'greet', content: 'Hello red', scope: 'team', scope_id: String(c.world.users.admin!.teamIds[0])})})
    expect(r.status).toBe(201)
    expect(r.json.scope_id).toBe(c.world.users.admin!.teamIds[0])
    redPromptId = r.json.id
    r = await c.call('POST', '/svc/prompts.json', {as: 'bob', ...prompt({name: 'Zebra notes', code: 'notes', content: 'n', kind: 'agent'})})
    expect(r.status).toBe(201)
  })

  it('lists a bare array of what the user sees, with q, exact filters and order_by', async () => {
    const c = ctx()
    const codes = async (login: string, query = '') => {
      const r = await c.call('GET', `/svc/prompts.json${query}`, {as: login})
      expect(r.status, r.text).toBe(200)
      expect(Array.isArray(r.json)).toBe(true)
      return (r.json as {code: string; scope: string}[]).map((p) => `${p.code}:${p.scope}`)
    }
    expect(await codes('alice')).toEqual(['greet:account', 'greet:user', 'greet:team', 'notes:account'])
    expect(await codes('bob')).toEqual(['greet:account', 'notes:account'])
    expect(await codes('carol', '?q=ZEBRA')).toEqual(['notes:account'])
    expect(await codes('alice', '?q=gree')).toEqual(['greet:account', 'greet:user', 'greet:team'])
    expect(await codes('alice', '?q=%25')).toEqual([])
    expect(await codes('alice', '?code=notes')).toEqual(['notes:account'])
    expect(await codes('alice', '?code=gree')).toEqual([])
    expect(await codes('alice', '?kind=agent')).toEqual(['greet:user', 'notes:account'])
    expect(await codes('alice', '?scope=team')).toEqual(['greet:team'])
    expect(await codes('alice', '?order_by=name_desc')).toEqual(['notes:account', 'greet:team', 'greet:user', 'greet:account'])
    expect(await codes('alice', '?order_by=id_desc')).toEqual(['notes:account', 'greet:team', 'greet:user', 'greet:account'])
    const bad = await c.call('GET', '/svc/prompts.json?order_by=token', {as: 'alice'})
    expect(bad.status).toBe(400)
    expect(bad.json.error).toMatch(/order_by/)
    expect((await c.call('GET', '/svc/prompts.json?kind=robot', {as: 'alice'})).status).toBe(400)
    const all = await c.call('GET', '/svc/prompts.json', {as: 'alice'})
    expect(all.text).not.toContain('"token"')
  })

  it('GET one, and its raw Markdown (Liquid not rendered)', async () => {
    const c = ctx()
    let r = await c.call('GET', `/svc/prompts/${alicePromptId}.json`, {as: 'alice'})
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({id: alicePromptId, code: 'greet', scope: 'user'})
    r = await c.call('GET', `/svc/prompts/${alicePromptId}.md`, {as: 'alice'})
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(r.text).toBe('Hello {{ name }} from alice')
    expect((await c.call('GET', '/svc/prompts/not-a-uuid.json', {as: 'alice'})).status).toBe(404)
    expect((await c.call('GET', `/svc/prompts/${alicePromptId}.txt`, {as: 'alice'})).status).toBe(404)
  })

  it("another user's user prompt and a team they are not in are 404; cross-account is 404", async () => {
    const c = ctx()
    for (const [login, id] of [['bob', alicePromptId], ['admin', alicePromptId], ['bob', redPromptId], ['mallory', accountPromptId]] as const) {
      expect((await c.call('GET', `/svc/prompts/${id}.json`, {as: login})).status, `${login} GET`).toBe(404)
      expect((await c.call('GET', `/svc/prompts/${id}.md`, {as: login})).status).toBe(404)
      expect((await c.call('PATCH', `/svc/prompts/${id}.json`, {as: login, ...prompt({name: 'hijack'})})).status).toBe(404)
      expect((await c.call('DELETE', `/svc/prompts/${id}.json`, {as: login})).status).toBe(404)
    }
    const list = await c.call('GET', '/svc/prompts.json', {as: 'mallory'})
    expect(list.json).toEqual([])
    expect((await c.call('GET', '/svc/prompt/greet.md', {as: 'mallory'})).status).toBe(404)
  })

  it('a visible prompt someone else created: 403 for a user, allowed for an admin', async () => {
    const c = ctx()
    let r = await c.call('PATCH', `/svc/prompts/${accountPromptId}.json`, {as: 'bob', ...prompt({name: 'Mine now'})})
    expect(r.status).toBe(403)
    expect(r.json.error).toEqual(expect.any(String))
    expect((await c.call('DELETE', `/svc/prompts/${accountPromptId}.json`, {as: 'bob'})).status).toBe(403)
    r = await c.call('PATCH', `/svc/prompts/${accountPromptId}.json`, {as: 'admin', ...prompt({name: 'Greeting (edited)'})})
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({name: 'Greeting (edited)', content: 'Hello from account', created_by_id: c.world.users.alice!.id})
  })

  it('PATCH answers 200 with the full object, validates, and re-checks the unique code', async () => {
    const c = ctx()
    let r = await c.call('PATCH', `/svc/prompts/${alicePromptId}.json`, {as: 'alice', ...prompt({name: '', ai_placeholder: 'Type here'})})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({name: ["can't be blank"]})
    r = await c.call('PATCH', `/svc/prompts/${alicePromptId}.json`, {as: 'alice', ...prompt({ai_placeholder: 'Type here', kind: 'chat'})})
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({id: alicePromptId, name: 'Mine', kind: 'chat', scope: 'user', fields: {ai_placeholder: 'Type here'}})
    // A GET answer sent back as a PATCH is accepted (read-only members ignored).
    const got = await c.call('GET', `/svc/prompts/${alicePromptId}.json`, {as: 'alice'})
    r = await c.call('PATCH', `/svc/prompts/${alicePromptId}.json`, {as: 'alice', body: {prompt: {...got.json, token: 'x', id: 'y'}}})
    expect(r.status).toBe(200)
    expect(r.json.id).toBe(alicePromptId)
    r = await c.call('PATCH', `/svc/prompts/${alicePromptId}.json`, {as: 'alice', ...prompt({scope: 'account'})})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({code: ['has already been taken']})
    r = await c.call('PATCH', `/svc/prompts/${alicePromptId}.json`, {as: 'alice', rawBody: '[1]'})
    expect(r.status).toBe(400)
  })

  it('DELETE answers 204 with no body; then the id is gone', async () => {
    const c = ctx()
    const created = await c.call('POST', '/svc/prompts.json', {as: 'carol', ...prompt({name: 'Tmp', code: 'tmp', content: 't'})})
    const r = await c.call('DELETE', `/svc/prompts/${created.json.id}.json`, {as: 'carol'})
    expect(r.status).toBe(204)
    expect(r.text).toBe('')
    expect((await c.call('GET', `/svc/prompts/${created.json.id}.json`, {as: 'carol'})).status).toBe(404)
    expect((await c.call('DELETE', `/svc/prompts/${created.json.id}.json`, {as: 'carol'})).status).toBe(404)
  })
})

describeBothTransports('prompts: the cascade and _extra', PROMPT_SEED, (ctx) => {
  const ids: Record<string, string> = {}
  const render = async (login: string, code = 'cas', query = '') => {
    const r = await ctx().call('GET', `/svc/prompt/${code}.md${query}`, {as: login})
    return {status: r.status, text: r.text, source: r.headers.get('x-svc-prompt-source'), extra: r.headers.get('x-svc-prompt-extra'), r}
  }
  const create = async (login: string, p: Record<string, unknown>) => {
    const r = await ctx().call('POST', '/svc/prompts.json', {as: login, ...prompt({name: 'n', ...p})})
    expect(r.status, r.text).toBe(201)
    return r.json.id as string
  }

  it('layers: user → team (lowest team id) → department → account, per user', async () => {
    const c = ctx()
    const [red, blue] = [c.world.users.admin!.teamIds[0]!, c.world.users.bob!.teamIds[0]!]
    expect(red).toBeLessThan(blue)
    ids.account = await create('carol', {code: 'cas', content: 'ACCOUNT'})
    ids.north = await create('alice', {code: 'cas', content: 'DEPT north', scope: 'department', scope_id: c.world.users.alice!.departmentIds[0]})
    ids.blue = await create('bob', {code: 'cas', content: 'TEAM blue', scope: 'team', scope_id: blue})
    ids.red = await create('admin', {code: 'cas', content: 'TEAM red', scope: 'team', scope_id: red})
    ids.alice = await create('alice', {code: 'cas', content: 'USER alice', scope: 'user'})
    expect(await render('alice')).toMatchObject({status: 200, text: 'USER alice', source: 'user', extra: '0'})
    expect(await render('bob')).toMatchObject({text: 'TEAM blue', source: 'team'})
    expect(await render('admin')).toMatchObject({text: 'TEAM red', source: 'team'})
    expect(await render('carol')).toMatchObject({text: 'ACCOUNT', source: 'account'})
  })

  it('removing layers falls through to the next one', async () => {
    const c = ctx()
    expect((await c.call('DELETE', `/svc/prompts/${ids.alice}.json`, {as: 'alice'})).status).toBe(204)
    expect(await render('alice')).toMatchObject({text: 'TEAM red', source: 'team'})
    expect((await c.call('DELETE', `/svc/prompts/${ids.red}.json`, {as: 'admin'})).status).toBe(204)
    expect(await render('alice')).toMatchObject({text: 'TEAM blue', source: 'team'})
    expect(await render('admin')).toMatchObject({text: 'DEPT north', source: 'department'})
    expect((await c.call('DELETE', `/svc/prompts/${ids.north}.json`, {as: 'alice'})).status).toBe(204)
    expect(await render('admin')).toMatchObject({text: 'ACCOUNT', source: 'account'})
    expect((await render('mallory')).status).toBe(404)
  })

  it('<code>_extra is appended after a blank line under "## Additional instructions", cascaded too', async () => {
    const c = ctx()
    await create('carol', {code: 'cas_extra', content: '\nBe brief, {{ who }}.\n'})
    let r = await render('carol', 'cas', '?who=Carol')
    expect(r).toMatchObject({status: 200, source: 'account', extra: '1'})
    expect(r.text).toBe('ACCOUNT\n\n## Additional instructions\n\nBe brief, Carol.\n')
    expect(r.r.headers.get('x-svc-prompt-extra-source')).toBe('account')
    await create('bob', {code: 'cas_extra', content: 'Bob extra', scope: 'user'})
    r = await render('bob')
    expect(r.text).toBe('TEAM blue\n\n## Additional instructions\n\nBob extra\n')
    expect(r.r.headers.get('x-svc-prompt-extra-source')).toBe('user')
    // An _extra alone renders nothing for a code found nowhere.
    await create('carol', {code: 'lonely_extra', content: 'x'})
    expect((await render('carol', 'lonely')).status).toBe(404)
  })

  it('an unknown code or a malformed name is 404', async () => {
    expect((await render('alice', 'nope')).status).toBe(404)
    expect((await render('alice', '..%2Fpackage')).status).toBe(404)
    const r = await ctx().call('GET', '/svc/prompt/cas.txt', {as: 'alice'})
    expect(r.status).toBe(404)
  })
})

describeBothTransports('prompts: rendering', PROMPT_SEED, (ctx) => {
  const put = async (code: string, content: string, kind = 'agent') => {
    const r = await ctx().call('POST', '/svc/prompts.json', {as: 'alice', ...prompt({name: code, code, content, kind})})
    expect(r.status, r.text).toBe(201)
  }

  it('fills TOKEN, ACCOUNT_URL, account_url, date and the caller variables', async () => {
    const c = ctx()
    await put('vars', 'T={{ TOKEN }} U={{ ACCOUNT_URL }} u={{ account_url }} D={{ date }} P={{ prompt_id }} C={{client_id}}')
    const r = await c.call('GET', '/svc/prompt/vars.md?date=2026-02-28&prompt_id=42&client_id=7&TOKEN=stolen&ACCOUNT_URL=https://evil.test', {as: 'alice'})
    expect(r.status, r.text).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(r.headers.get('cache-control')).toBe('no-store')
    const origin = c.transport.origin
    expect(r.text).toBe(`T=${c.world.users.alice!.token} U=${origin} u=${origin} D=2026-02-28 P=42 C=7`)
    expect(r.headers.get('x-svc-prompt-token')).toBe('bearer')
  })

  it('date defaults to today; a bad date is 400', async () => {
    const c = ctx()
    await put('day', '{{ date }}')
    const p = (n: number) => String(n).padStart(2, '0')
    const day = (now: Date) => `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`
    // The day before and after the request: the same one, unless the render ran across midnight.
    const before = day(new Date())
    const r = await c.call('GET', '/svc/prompt/day.md', {as: 'alice'})
    expect([...new Set([before, day(new Date())])]).toContain(r.text)
    for (const bad of ['2026-02-30', 'tomorrow', '2026-1-2']) {
      const b = await c.call('GET', `/svc/prompt/day.md?date=${bad}`, {as: 'alice'})
      expect(b.status, bad).toBe(400)
      expect(b.json.error).toMatch(/YYYY-MM-DD/)
    }
  })

  it('prompt_url and api_block write exactly the lines of the spec', async () => {
    const c = ctx()
    await put('filters', 'See {{ "crm_help" | prompt_url }}\n{{ "crm_api, kb_api" | api_block }}\n--\n{{ "" | api_block }}')
    const r = await c.call('GET', '/svc/prompt/filters.md', {as: 'bob'})
    const u = c.transport.origin
    const t = c.world.users.bob!.token
    expect(r.text).toBe([
      `See ${u}/svc/prompt/crm_help.md`,
      `Instrukcje API: ${u}/svc/prompt/crm_api.md`,
      `Instrukcje API: ${u}/svc/prompt/kb_api.md`,
      `Zasady API: ${u}/svc/prompt/common_api.md`,
      `Host: ${u}`,
      `Authorization: Bearer ${t}`,
      '--',
      `Zasady API: ${u}/svc/prompt/common_api.md`,
      `Host: ${u}`,
      `Authorization: Bearer ${t}`,
    ].join('\n'))
  })

  it('conditions on supplied and missing variables', async () => {
    const c = ctx()
    await put('cond', '{% if prompt_id != blank %}prompt {{ prompt_id }}{% else %}no prompt{% endif %}')
    expect((await c.call('GET', '/svc/prompt/cond.md?prompt_id=9', {as: 'alice'})).text).toBe('prompt 9')
    expect((await c.call('GET', '/svc/prompt/cond.md', {as: 'alice'})).text).toBe('no prompt')
    expect((await c.call('GET', '/svc/prompt/cond.md?prompt_id=', {as: 'alice'})).text).toBe('no prompt')
  })

  it('strict mode (X-Svc-Strict: 1) refuses an unsupplied output variable with 400', async () => {
    const c = ctx()
    await put('strict', '{% if extra != blank %}{{ extra }}{% endif %}Hi {{ client_id }}')
    let r = await c.call('GET', '/svc/prompt/strict.md', {as: 'alice', headers: {'x-svc-strict': '1'}})
    expect(r.status).toBe(400)
    expect(r.json).toEqual({error: 'variable "client_id" is used by the prompt but was not given', variable: 'client_id'})
    r = await c.call('GET', '/svc/prompt/strict.md?client_id=3', {as: 'alice', headers: {'x-svc-strict': '1'}})
    expect(r.text).toBe('Hi 3')
    expect((await c.call('GET', '/svc/prompt/strict.md', {as: 'alice'})).text).toBe('Hi ')
  })

  it('is bounded and sandboxed: no files, no prototypes, limits answer 422', async () => {
    const c = ctx()
    await put('inc', "{% include '../../package.json' %}")
    let r = await c.call('GET', '/svc/prompt/inc.md', {as: 'alice'})
    expect(r.status).toBe(422)
    expect(r.json.content[0]).toMatch(/^cannot be rendered/)
    expect(r.text).not.toContain('"name"')
    await put('proto', '[{{ prompt_id.constructor }}][{{ x.__proto__ }}][{{ constructor }}]')
    r = await c.call('GET', '/svc/prompt/proto.md?prompt_id=1&__proto__=z&constructor=y', {as: 'alice'})
    expect(r.status).toBe(200)
    expect(r.text).toBe('[][][]')
    await put('loop', '{% for i in (1..100000000) %}{{ i }}{% endfor %}')
    r = await c.call('GET', '/svc/prompt/loop.md', {as: 'alice'})
    expect(r.status).toBe(422)
    expect(r.json.content[0]).toMatch(/limit/)
  })

  it('ACCOUNT_URL is the configured public URL without a trailing slash', async () => {
    const c = ctx()
    c.world.deps.publicUrl = 'https://acme.example.com/'
    try {
      const r = await c.call('GET', '/svc/prompt/filters.md', {as: 'alice'})
      expect(r.text).toContain('Host: https://acme.example.com\n')
      expect(r.text).toContain('See https://acme.example.com/svc/prompt/crm_help.md')
    } finally {
      delete c.world.deps.publicUrl
    }
  })
})

describeBothTransports('prompts: system prompt files', PROMPT_SEED, (ctx) => {
  const dir = tempDir('svc-sysprompts-')
  mkdirSync(dir, {recursive: true})
  writeFileSync(join(dir, 'helper.agent.md'), '---\nname: "Helper: agent"\nplaceholder: Ask about clients\n---\n# Helper\n{{ "crm" | api_block }}\nDate {{ date }}\n')
  writeFileSync(join(dir, 'plain.md'), 'No front matter {{ who }}\n')
  writeFileSync(join(dir, 'common_api.md'), '---\nname: Overridden rules\n---\nServer rules win\n')

  it('the package ships common_api and the dashboard agents, each with front matter', async () => {
    const c = ctx()
    const r = await c.call('GET', '/svc/prompts/system.json', {as: 'alice'})
    expect(r.status).toBe(200)
    const byCode = Object.fromEntries((r.json as {code: string}[]).map((p) => [p.code, p]))
    expect(byCode.common_api).toMatchObject({kind: 'chat', name: 'API rules', source: 'package'})
    for (const code of ['main_dashboard', 'crm_dashboard', 'cms_dashboard', 'organize_dashboard', 'mail_dashboard', 'kb_dashboard', 'marketing_dashboard', 'account_dashboard']) {
      expect(byCode[code], code).toMatchObject({kind: 'agent', name: expect.any(String), placeholder: expect.any(String), source: 'package'})
      const raw = await c.call('GET', `/svc/prompts/system/${code}.md`, {as: 'alice'})
      expect(raw.text.startsWith('---')).toBe(false)
      expect(raw.text).toContain('| api_block }}')
      const rendered = await c.call('GET', `/svc/prompt/${code}.md?date=2026-03-01`, {as: 'alice'})
      expect(rendered.status, rendered.text).toBe(200)
      expect(rendered.text).toContain(`Zasady API: ${c.transport.origin}/svc/prompt/common_api.md`)
      expect(rendered.text).toContain(`Authorization: Bearer ${c.world.users.alice!.token}`)
      expect(rendered.text).not.toContain('{{')
      // Every instruction the agent is pointed at exists.
      const linked = [...rendered.text.matchAll(/^Instrukcje API: \S+\/svc\/prompt\/(\w+)\.md$/gm)].map((m) => m[1]!)
      expect(linked.length).toBeGreaterThan(0)
      for (const code of linked) expect((await c.call('GET', `/svc/prompt/${code}.md`, {as: 'alice'})).status, code).toBe(200)
    }
    const rules = await c.call('GET', '/svc/prompt/common_api.md', {as: 'alice'})
    expect(rules.status).toBe(200)
    expect(rules.text).toContain(`Base address: \`${c.transport.origin}\``)
    expect(rules.text).toContain('{{TOKEN}}')
    expect(rules.headers.get('x-svc-prompt-source')).toBe('system')
  })

  it('the server folder adds files and wins over the package; front matter is never content', async () => {
    const c = ctx()
    c.world.deps.systemPromptsDirs.push(dir)
    let r = await c.call('GET', '/svc/prompts/system/helper.md', {as: 'alice'})
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(r.text).toBe('# Helper\n{{ "crm" | api_block }}\nDate {{ date }}\n')
    r = await c.call('GET', '/svc/prompts/system/common_api.md', {as: 'alice'})
    expect(r.text).toBe('Server rules win\n')
    r = await c.call('GET', '/svc/prompts/system.json', {as: 'alice'})
    const list = r.json as {code: string}[]
    expect(list.find((p) => p.code === 'helper')).toEqual({code: 'helper', kind: 'agent', name: 'Helper: agent', placeholder: 'Ask about clients', source: 'server'})
    expect(list.find((p) => p.code === 'plain')).toEqual({code: 'plain', kind: 'chat', name: 'plain', placeholder: null, source: 'server'})
    expect(list.find((p) => p.code === 'common_api')).toMatchObject({name: 'Overridden rules', source: 'server'})
    r = await c.call('GET', '/svc/prompt/helper.md?date=2026-05-06', {as: 'alice'})
    expect(r.text).toBe(`# Helper\nInstrukcje API: ${c.transport.origin}/svc/prompt/crm.md\nZasady API: ${c.transport.origin}/svc/prompt/common_api.md\nHost: ${c.transport.origin}\nAuthorization: Bearer ${c.world.users.alice!.token}\nDate 2026-05-06\n`)
    expect(r.text).not.toContain('placeholder')
    expect((await c.call('GET', '/svc/prompts/system/nope.md', {as: 'alice'})).status).toBe(404)
    expect((await c.call('GET', '/svc/prompts/system/..%2F..%2Fpackage.json.md', {as: 'alice'})).status).toBe(404)
    expect((await c.call('GET', '/svc/prompts/system/plain.md', {as: null})).status).toBe(401)
  })

  it('a stored prompt overrides the file; deleting it brings the file back; the file endpoint bypasses the database', async () => {
    const c = ctx()
    const created = await c.call('POST', '/svc/prompts.json', {as: 'alice', ...prompt({name: 'My plain', code: 'plain', content: 'Stored {{ who }}', scope: 'user'})})
    expect(created.status).toBe(201)
    let r = await c.call('GET', '/svc/prompt/plain.md?who=me', {as: 'alice'})
    expect(r.text).toBe('Stored me')
    expect(r.headers.get('x-svc-prompt-source')).toBe('user')
    expect(r.headers.get('x-svc-prompt-id')).toBe(created.json.id)
    r = await c.call('GET', '/svc/prompts/system/plain.md', {as: 'alice'})
    expect(r.text).toBe('No front matter {{ who }}\n')
    r = await c.call('GET', '/svc/prompt/plain.md?who=me', {as: 'bob'})
    expect(r.text).toBe('No front matter me\n')
    expect((await c.call('DELETE', `/svc/prompts/${created.json.id}.json`, {as: 'alice'})).status).toBe(204)
    r = await c.call('GET', '/svc/prompt/plain.md?who=me', {as: 'alice'})
    expect(r.text).toBe('No front matter me\n')
    expect(r.headers.get('x-svc-prompt-source')).toBe('system')
    // The list holds stored prompts only.
    expect((await c.call('GET', '/svc/prompts.json?code=plain', {as: 'alice'})).json).toEqual([])
  })
})
