import {beforeAll, expect, it} from 'vitest'
import {describeBothTransports, runScenarios} from '../helpers/scenarios.js'
import {DASHBOARD_SEED, insertApp} from './helpers.js'

const keys = (layout: {key: string}[]) => layout.map((i) => i.key)
const DASHBOARD_KEYS = ['context', 'created_by_id', 'editable', 'id', 'is_default', 'layout', 'name', 'shared', 'updated_at']

runScenarios('dashboards: input errors', DASHBOARD_SEED, [
  {
    name: 'no token: 401 (JSON in utf-8 as the spec says)', method: 'GET', url: '/toolkit/dashboards.json', as: null, expectedStatus: 401,
    expectedHeaders: {'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Bearer'},
  },
  {
    name: 'answers carry application/json; charset=utf-8', method: 'GET', url: '/toolkit/dashboards/widgets.json', expectedStatus: 200,
    expectedHeaders: {'content-type': 'application/json; charset=utf-8'},
  },
  // Issue 18: every JSON answer of the API names its charset now, not only the dashboards'.
  {name: 'other areas say the charset too', method: 'GET', url: '/svc/me.json', expectedStatus: 200, expectedHeaders: {'content-type': 'application/json; charset=utf-8'}},
  {name: 'widgets without token: 401', method: 'GET', url: '/toolkit/dashboards/widgets.json', as: null, expectedStatus: 401},
  {name: 'name required', method: 'POST', url: '/toolkit/dashboards.json', body: {dashboard: {}}, expectedStatus: 422, expectedContent: {name: ["can't be blank"]}},
  {name: 'no envelope: name required', method: 'POST', url: '/toolkit/dashboards.json', body: {name: 'x'}, expectedStatus: 422, expectedContent: {name: ["can't be blank"]}},
  {
    name: 'name of 101 characters', method: 'POST', url: '/toolkit/dashboards.json', body: {dashboard: {name: 'x'.repeat(101)}},
    expectedStatus: 422, expectedContent: {name: ['is too long (maximum is 100 characters)']},
  },
  {
    name: 'a context outside the eight', method: 'POST', url: '/toolkit/dashboards.json', body: {dashboard: {name: 'x', context: 'toolkit'}},
    expectedStatus: 422, expectedContent: {context: [expect.stringContaining('is not included in the list')]},
  },
  {
    name: 'layout must be an array; shared and is_default booleans', method: 'POST', url: '/toolkit/dashboards.json',
    body: {dashboard: {name: 'x', layout: {key: 'kpi'}, shared: 'yes', is_default: 1}}, expectedStatus: 422,
    expectedContent: {layout: [expect.any(String)], shared: ['must be true or false'], is_default: ['must be true or false']},
  },
  {
    name: 'is_default on a personal dashboard', method: 'POST', url: '/toolkit/dashboards.json', body: {dashboard: {name: 'x', is_default: true}},
    expectedStatus: 422, expectedContent: {is_default: [expect.stringContaining('company')]},
  },
  {name: 'bad JSON: 400', method: 'POST', url: '/toolkit/dashboards.json', rawBody: '{"dashboard":', expectedStatus: 400, expectedContent: {error: 'invalid JSON body'}},
  {name: 'envelope not an object: 400', method: 'POST', url: '/toolkit/dashboards.json', body: {dashboard: 'x'}, expectedStatus: 400},
  {
    name: 'a non-numeric id: 404', method: 'GET', url: '/toolkit/dashboards/abc.json', expectedStatus: 404,
    expectedContent: {error: 'dashboard not found'}, expectedHeaders: {'content-type': 'application/json; charset=utf-8'},
  },
  {name: 'a deeper path: 404', method: 'GET', url: '/toolkit/dashboards/1/x.json', expectedStatus: 404},
  {name: 'id 0: 404', method: 'GET', url: '/toolkit/dashboards/0.json', expectedStatus: 404},
  {name: 'a missing id: 404', method: 'DELETE', url: '/toolkit/dashboards/999.json', expectedStatus: 404},
  {name: 'an id without .json: 404', method: 'GET', url: '/toolkit/dashboards/1', expectedStatus: 404},
  {name: 'list with a bad context: 422', method: 'GET', url: '/toolkit/dashboards.json?context=nope', expectedStatus: 422, expectedContent: {context: [expect.any(String)]}},
  {name: 'widgets with a bad context: 422', method: 'GET', url: '/toolkit/dashboards/widgets.json?context=nope', expectedStatus: 422},
  {name: 'widget without key: 422', method: 'GET', url: '/toolkit/dashboards/widget.json', expectedStatus: 422, expectedContent: {key: ["can't be blank"]}},
  {name: 'widget of an unknown key: 404', method: 'GET', url: '/toolkit/dashboards/widget.json?key=nope', expectedStatus: 404, expectedContent: {error: 'tile not available'}},
  {name: 'select without dashboard_id: 422', method: 'PATCH', url: '/toolkit/dashboards/select.json', body: {context: 'main'}, expectedStatus: 422, expectedContent: {dashboard_id: [expect.any(String)]}},
  {name: 'select with a bad context: 422', method: 'PATCH', url: '/toolkit/dashboards/select.json', body: {context: 'x', dashboard_id: ''}, expectedStatus: 422, expectedContent: {context: [expect.any(String)]}},
  {name: 'select with a bad id: 422', method: 'PATCH', url: '/toolkit/dashboards/select.json', body: {dashboard_id: 'latest'}, expectedStatus: 422},
  {name: 'select with id 0: 422 with its message', method: 'PATCH', url: '/toolkit/dashboards/select.json', body: {dashboard_id: 0}, expectedStatus: 422,
    expectedContent: {dashboard_id: ['must be a dashboard id, "builtin" or an empty string']}},
  {name: 'widget with an empty key: 422', method: 'GET', url: '/toolkit/dashboards/widget.json?key=', expectedStatus: 422, expectedContent: {key: ["can't be blank"]}},
  {name: 'list with an empty context: every context', method: 'GET', url: '/toolkit/dashboards.json?context=', expectedStatus: 200},
  {name: 'a body that is not an object: 400', method: 'PATCH', url: '/toolkit/dashboards/select.json', body: [1], expectedStatus: 400},
  {name: 'select of a missing dashboard: 404', method: 'PATCH', url: '/toolkit/dashboards/select.json', body: {dashboard_id: 999}, expectedStatus: 404},
])

describeBothTransports('dashboards without the toolkit module', DASHBOARD_SEED, (ctx) => {
  let appId = ''
  let inactiveAppId = ''
  let mine = 0 // alice's personal main dashboard
  let company = 0 // boss's company main dashboard (the default)
  let company2 = 0
  beforeAll(async () => {
    const w = ctx().world
    appId = await insertApp(w, w.accounts.acme!)
    inactiveAppId = await insertApp(w, w.accounts.acme!, {active: false, name: 'Old'})
    await insertApp(w, w.accounts.other!, {name: 'Foreign'})
  })

  it('without any dashboard every context shows its standard layout, filtered to what the viewer may use', async () => {
    const c = ctx()
    let r = await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'alice'})
    expect(r.status).toBe(200)
    expect(r.json).toEqual({
      current_id: 'builtin',
      layout: [
        {id: 'module_header', key: 'module_header', size: 'full', config: {module: 'main', frame: 'box'}},
        {id: 'module_icons', key: 'module_icons', size: 'full', config: {}},
      ],
      dashboards: [],
    })
    r = await c.call('GET', '/toolkit/dashboards/widgets.json?context=crm', {as: 'alice'})
    expect(keys(r.json.layout)).toEqual(['module_header', 'crm_stats', 'crm_deals', 'crm_clients', 'crm_contacts'])
    r = await c.call('GET', '/toolkit/dashboards/widgets.json?context=crm', {as: 'bob'})
    expect(keys(r.json.layout)).toEqual(['module_header', 'crm_stats', 'crm_deals', 'crm_clients', 'crm_contacts', 'crm_notes'])
    r = await c.call('GET', '/toolkit/dashboards/widgets.json?context=kb', {as: 'bob'})
    expect(r.json.layout).toEqual([{id: 'module_header', key: 'module_header', size: 'full', config: {module: 'kb'}}])
    r = await c.call('GET', '/toolkit/dashboards/widgets.json?context=account', {as: 'alice'})
    expect(r.json.layout[1]).toEqual({id: 'module_icons', key: 'module_icons', size: 'full', config: {icons: 'account', title: 'hide'}})
  })

  it('POST: 201, the standard layout when none is given, and it becomes the author\'s selection', async () => {
    const c = ctx()
    const r = await c.call('POST', '/toolkit/dashboards.json', {as: 'alice', body: {dashboard: {name: '  Mine  '}}})
    expect(r.status).toBe(201)
    expect(Object.keys(r.json).sort()).toEqual(DASHBOARD_KEYS)
    expect(r.json).toMatchObject({name: 'Mine', context: 'main', shared: false, is_default: false, editable: true, created_by_id: c.world.users.alice!.id})
    expect(Number.isInteger(r.json.id)).toBe(true)
    expect(new Date(r.json.updated_at).toISOString()).toBe(r.json.updated_at)
    expect(keys(r.json.layout)).toEqual(['module_header', 'module_icons'])
    mine = r.json.id
    const w = await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'alice'})
    expect(w.json).toMatchObject({current_id: mine, dashboards: [{id: mine, name: 'Mine', shared: false, is_default: false}]})
    const other = await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'bob'})
    expect(other.json).toMatchObject({current_id: 'builtin', dashboards: []})
  })

  it('a personal layout keeps only tiles its author may use; unknown keys and foreign or inactive apps go; settings normalised', async () => {
    const c = ctx()
    const layout = [
      {key: 'todo'}, {key: 'crm_notes'}, {key: 'kb_stats'}, {key: 'nope'},
      {key: 'crm_deals', id: 'deals', size: 'quarter', config: {filter: 'open', scope: 'mine', limit: '15', x: 1}},
      {key: 'kpi', size: 'huge'},
      {key: `svc_app:${appId}`}, {key: `svc_app:${inactiveAppId}`}, {key: 'svc_app:00000000-0000-4000-8000-000000000000'},
      {key: 'quick_actions', config: {custom_name: 'Evil', custom_url: 'javascript:alert(1)'}},
      {key: 'quick_actions', config: {custom_name: 'Wiki', custom_url: '//evil.example'}},
      {key: 'quick_actions', config: {custom_name: 'Wiki', custom_url: '/kb'}},
    ]
    const r = await c.call('PATCH', `/toolkit/dashboards/${mine}.json`, {as: 'alice', body: {dashboard: {layout}}})
    expect(r.status).toBe(200)
    expect(r.json.layout).toEqual([
      {id: 'deals', key: 'crm_deals', size: 'quarter', config: {scope: 'mine', limit: '15'}},
      {id: 'kpi', key: 'kpi', size: 'full', config: {}},
      {id: expect.stringMatching(/^svc_app-[0-9a-f]{8}$/), key: `svc_app:${appId}`, size: 'half', config: {}},
      {id: 'quick_actions', key: 'quick_actions', size: 'half', config: {custom_name: 'Evil'}},
      {id: 'quick_actions-2', key: 'quick_actions', size: 'half', config: {custom_name: 'Wiki'}},
      {id: 'quick_actions-3', key: 'quick_actions', size: 'half', config: {custom_name: 'Wiki', custom_url: '/kb'}},
    ])
    const again = await c.call('GET', `/toolkit/dashboards/${mine}.json`, {as: 'alice'})
    expect(again.json.layout).toEqual(r.json.layout)
  })

  it('at most 60 layout items are stored', async () => {
    const c = ctx()
    const layout = Array.from({length: 75}, () => ({key: 'activity'}))
    const r = await c.call('POST', '/toolkit/dashboards.json', {as: 'alice', body: {dashboard: {name: 'Big', context: 'organize', layout}}})
    expect(r.status).toBe(201)
    expect(r.json.layout).toHaveLength(60)
    expect(r.json.layout[59].id).toBe('activity-60')
  })

  it('another user\'s personal dashboard is a 404 for every verb, and never listed', async () => {
    const c = ctx()
    for (const [method, body] of [['GET', undefined], ['PATCH', {dashboard: {name: 'x'}}], ['DELETE', undefined]] as const) {
      expect((await c.call(method, `/toolkit/dashboards/${mine}.json`, {as: 'bob', body})).status).toBe(404)
      expect((await c.call(method, `/toolkit/dashboards/${mine}.json`, {as: 'admin', body})).status).toBe(404)
      expect((await c.call(method, `/toolkit/dashboards/${mine}.json`, {as: 'mallory', body})).status).toBe(404)
    }
    expect((await c.call('PATCH', '/toolkit/dashboards/select.json', {as: 'bob', body: {dashboard_id: mine}})).status).toBe(404)
    expect((await c.call('GET', '/toolkit/dashboards.json', {as: 'bob'})).json).toEqual([])
  })

  it('a company dashboard needs permission account (403)', async () => {
    const c = ctx()
    for (const who of ['alice', 'adv', 'bob']) {
      const r = await c.call('POST', '/toolkit/dashboards.json', {as: who, body: {dashboard: {name: 'Co', shared: true}}})
      expect(r.status).toBe(403)
      expect(r.json.error).toContain('account')
    }
  })

  it('a company dashboard may hold tiles its author cannot see; each viewer sees their own subset', async () => {
    const c = ctx()
    const layout = [{key: 'todo'}, {key: 'crm_notes'}, {key: 'kb_stats'}, {key: 'activity', config: {scope: 'mine'}}]
    const r = await c.call('POST', '/toolkit/dashboards.json', {as: 'boss', body: {dashboard: {name: 'Company', shared: true, is_default: true, layout}}})
    expect(r.status).toBe(201)
    expect(r.json).toMatchObject({shared: true, is_default: true, editable: true})
    expect(keys(r.json.layout)).toEqual(['todo', 'crm_notes', 'kb_stats', 'activity'])
    company = r.json.id
    // Bob has no selection in main: the company default, filtered to his tiles (kb is not enabled).
    const bob = await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'bob'})
    expect(bob.json.current_id).toBe(company)
    expect(keys(bob.json.layout)).toEqual(['todo', 'crm_notes', 'activity'])
    // Alice keeps her own selection; viewing the company dashboard she sees only her tiles and may not edit it.
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'alice'})).json.current_id).toBe(mine)
    const seen = await c.call('GET', `/toolkit/dashboards/${company}.json`, {as: 'alice'})
    expect(seen.json).toMatchObject({editable: false, shared: true})
    expect(keys(seen.json.layout)).toEqual(['activity'])
    // Its editor gets the whole stored layout.
    const boss = await c.call('GET', `/toolkit/dashboards/${company}.json`, {as: 'boss'})
    expect(keys(boss.json.layout)).toEqual(['todo', 'crm_notes', 'kb_stats', 'activity'])
  })

  it('changing a company dashboard needs permission account; PATCH answers the full object', async () => {
    const c = ctx()
    expect((await c.call('PATCH', `/toolkit/dashboards/${company}.json`, {as: 'alice', body: {dashboard: {name: 'Hacked'}}})).status).toBe(403)
    expect((await c.call('DELETE', `/toolkit/dashboards/${company}.json`, {as: 'alice'})).status).toBe(403)
    const r = await c.call('PATCH', `/toolkit/dashboards/${company}.json`, {as: 'admin', body: {dashboard: {name: 'Company home'}}})
    expect(r.status).toBe(200)
    expect(Object.keys(r.json).sort()).toEqual(DASHBOARD_KEYS)
    expect(r.json).toMatchObject({id: company, name: 'Company home', is_default: true, created_by_id: c.world.users.boss!.id})
    const bad = await c.call('PATCH', `/toolkit/dashboards/${company}.json`, {as: 'boss', body: {dashboard: {context: 'crm', shared: false, name: ''}}})
    expect(bad.status).toBe(422)
    expect(bad.json).toEqual({context: ['cannot be changed'], shared: ['cannot be changed'], name: ["can't be blank"]})
    // Sending a fetched object back is fine.
    const same = await c.call('PATCH', `/toolkit/dashboards/${company}.json`, {as: 'boss', body: {dashboard: r.json}})
    expect(same.status).toBe(200)
    expect(same.json.layout).toEqual(r.json.layout)
  })

  it('is_default moves from the previous default of the context (POST and PATCH); other contexts keep theirs', async () => {
    const c = ctx()
    const crm = await c.call('POST', '/toolkit/dashboards.json', {as: 'boss', body: {dashboard: {name: 'CRM co', context: 'crm', shared: true, is_default: true}}})
    expect(crm.json).toMatchObject({context: 'crm', is_default: true})
    expect(keys(crm.json.layout)).toEqual(['module_header', 'crm_stats', 'crm_deals', 'crm_clients', 'crm_contacts', 'crm_notes'])
    const y = await c.call('POST', '/toolkit/dashboards.json', {as: 'boss', body: {dashboard: {name: 'Second', shared: true, is_default: true}}})
    expect(y.json.is_default).toBe(true)
    company2 = y.json.id
    expect((await c.call('GET', `/toolkit/dashboards/${company}.json`, {as: 'boss'})).json.is_default).toBe(false)
    expect((await c.call('GET', `/toolkit/dashboards/${crm.json.id}.json`, {as: 'boss'})).json.is_default).toBe(true)
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'bob'})).json.current_id).toBe(company2)
    const back = await c.call('PATCH', `/toolkit/dashboards/${company}.json`, {as: 'boss', body: {dashboard: {is_default: true}}})
    expect(back.json.is_default).toBe(true)
    expect((await c.call('GET', `/toolkit/dashboards/${company2}.json`, {as: 'boss'})).json.is_default).toBe(false)
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'bob'})).json.current_id).toBe(company)
    const personal = await c.call('PATCH', `/toolkit/dashboards/${mine}.json`, {as: 'alice', body: {dashboard: {is_default: true}}})
    expect(personal.status).toBe(422)
    expect(personal.json).toHaveProperty('is_default')
  })

  it('lists company plus own dashboards, optionally of one context', async () => {
    const c = ctx()
    const all = await c.call('GET', '/toolkit/dashboards.json', {as: 'alice'})
    expect(all.status).toBe(200)
    expect(all.json.map((d: {name: string}) => d.name)).toEqual(['Mine', 'Big', 'Company home', 'CRM co', 'Second'])
    const crm = await c.call('GET', '/toolkit/dashboards.json?context=crm', {as: 'alice'})
    expect(crm.json.map((d: {name: string}) => d.name)).toEqual(['CRM co'])
    expect((await c.call('GET', '/toolkit/dashboards.json', {as: 'mallory'})).json).toEqual([])
  })

  it('select: a visible id, "builtin", or the empty string (company default)', async () => {
    const c = ctx()
    const sel = (dashboard_id: unknown, context: string | undefined = 'main', as = 'alice') =>
      c.call('PATCH', '/toolkit/dashboards/select.json', {as, body: context === undefined ? {dashboard_id} : {context, dashboard_id}})
    let r = await sel(company2)
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({context: 'main', dashboard_id: company2, current_id: company2})
    r = await sel('builtin')
    expect(r.json).toMatchObject({dashboard_id: 'builtin', current_id: 'builtin'})
    expect(keys(r.json.layout)).toEqual(['module_header', 'module_icons'])
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'alice'})).json.current_id).toBe('builtin')
    r = await sel('')
    expect(r.json).toMatchObject({dashboard_id: '', current_id: company})
    r = await sel(String(mine), undefined)
    expect(r.json).toMatchObject({context: 'main', dashboard_id: mine, current_id: mine})
    r = await sel(mine, 'crm')
    expect(r.status).toBe(422)
    expect(r.json.dashboard_id[0]).toContain('context')
    expect((await sel(mine, 'main', 'bob')).status).toBe(404)
    expect((await sel(company, 'main', 'mallory')).status).toBe(404)
    // Selections are per user and per context.
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'bob'})).json.current_id).toBe(company)
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json?context=crm', {as: 'alice'})).json.current_id).not.toBe(mine)
  })

  it('deleting the selected dashboard reverts to the company default, else the standard layout', async () => {
    const c = ctx()
    expect((await c.call('PATCH', '/toolkit/dashboards/select.json', {as: 'bob', body: {context: 'main', dashboard_id: company2}})).status).toBe(200)
    const del = await c.call('DELETE', `/toolkit/dashboards/${mine}.json`, {as: 'alice'})
    expect(del.status).toBe(204)
    expect(del.text).toBe('')
    expect((await c.call('GET', `/toolkit/dashboards/${mine}.json`, {as: 'alice'})).status).toBe(404)
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'alice'})).json.current_id).toBe(company)
    expect((await c.call('DELETE', `/toolkit/dashboards/${company2}.json`, {as: 'boss'})).status).toBe(204)
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'bob'})).json.current_id).toBe(company)
    expect((await c.call('DELETE', `/toolkit/dashboards/${company}.json`, {as: 'boss'})).status).toBe(204)
    const w = await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'bob'})
    expect(w.json.current_id).toBe('builtin')
    expect(keys(w.json.layout)).toEqual(['module_header', 'module_icons'])
  })

  it('widget.json: the tile\'s name, settings and default config; 404 when unavailable', async () => {
    const c = ctx()
    let r = await c.call('GET', '/toolkit/dashboards/widget.json?key=inbox', {as: 'alice'})
    expect(r.status).toBe(200)
    expect(r.json).toEqual({
      key: 'inbox', name: 'Shared inbox',
      settings: {
        scope: {options: ['mine', 'mine_unassigned', 'unassigned', 'all'], default: 'mine', multiple: false, text: false},
        source: {options: ['all', 'tasks', 'emails'], default: 'all', multiple: false, text: false},
        limit: {options: ['5', '10', '15', '20'], default: '10', multiple: false, text: false},
      },
      config: {scope: 'mine', source: 'all', limit: '10'},
    })
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=crm_deals', {as: 'alice'})).json.name).toBe('Recent deals')
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=todo', {as: 'alice'})).status).toBe(404)
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=todo', {as: 'bob'})).json).toEqual({key: 'todo', name: 'TODO', settings: {}, config: {}})
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=crm_notes', {as: 'alice'})).status).toBe(404)
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=crm_notes', {as: 'bob'})).status).toBe(200)
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=kb_stats', {as: 'admin'})).status).toBe(404)
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=mail', {as: 'admin'})).status).toBe(404)
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=tasks', {as: 'alice'})).status).toBe(200)
    r = await c.call('GET', `/toolkit/dashboards/widget.json?key=svc_app:${appId}`, {as: 'alice'})
    expect(r.json).toEqual({key: `svc_app:${appId}`, name: 'App: Weather', settings: {}, config: {}})
    expect((await c.call('GET', `/toolkit/dashboards/widget.json?key=svc_app:${inactiveAppId}`, {as: 'alice'})).status).toBe(404)
    expect((await c.call('GET', `/toolkit/dashboards/widget.json?key=svc_app:${appId}`, {as: 'mallory'})).status).toBe(404)
  })

  it('disabling a module hides its tiles from what viewers get; enabling brings them back', async () => {
    const c = ctx()
    const d = await c.call('POST', '/toolkit/dashboards.json', {as: 'alice', body: {dashboard: {name: 'Deals', context: 'crm', layout: [{key: 'crm_deals'}, {key: 'activity'}]}}})
    expect(keys(d.json.layout)).toEqual(['crm_deals', 'activity'])
    const off = await c.call('POST', '/account/set_field.json?key=account.settings.modules&action_type=remove&value=crm', {as: 'admin'})
    expect(off.status).toBe(200)
    let w = await c.call('GET', '/toolkit/dashboards/widgets.json?context=crm', {as: 'alice'})
    expect(w.json.current_id).toBe(d.json.id)
    expect(keys(w.json.layout)).toEqual(['activity'])
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=crm_deals', {as: 'alice'})).status).toBe(404)
    await c.call('POST', '/account/set_field.json?key=account.settings.modules&action_type=add&value=crm', {as: 'admin'})
    w = await c.call('GET', '/toolkit/dashboards/widgets.json?context=crm', {as: 'alice'})
    expect(keys(w.json.layout)).toEqual(['crm_deals', 'activity'])
  })
  it('without a layout a dashboard gets the standard layout of its context; a personal one only the author\'s tiles', async () => {
    const c = ctx()
    const personal = await c.call('POST', '/toolkit/dashboards.json', {as: 'alice', body: {dashboard: {name: 'My CRM', context: 'crm'}}})
    expect(keys(personal.json.layout)).toEqual(['module_header', 'crm_stats', 'crm_deals', 'crm_clients', 'crm_contacts'])
    const kb = await c.call('POST', '/toolkit/dashboards.json', {as: 'alice', body: {dashboard: {name: 'My KB', context: 'kb'}}})
    expect(kb.json.layout).toEqual([{id: 'module_header', key: 'module_header', size: 'full', config: {module: 'kb'}}])
    const shared = await c.call('POST', '/toolkit/dashboards.json', {as: 'boss', body: {dashboard: {name: 'Co KB', context: 'kb', shared: true}}})
    expect(keys(shared.json.layout)).toEqual(['module_header', 'kb_stats', 'kb_knowledge_bases', 'kb_comments', 'kb_entries', 'kb_entry_urls'])
  })
})

describeBothTransports('dashboards with the toolkit module', {...DASHBOARD_SEED, modules: {acme: ['crm', 'toolkit']}}, (ctx) => {
  let company = 0
  let personal = 0

  it('creating a personal dashboard needs dashboard_advanced', async () => {
    const c = ctx()
    const refused = await c.call('POST', '/toolkit/dashboards.json', {as: 'alice', body: {dashboard: {name: 'Mine'}}})
    expect(refused.status).toBe(403)
    expect(refused.json.error).toContain('dashboard_advanced')
    const ok = await c.call('POST', '/toolkit/dashboards.json', {as: 'adv', body: {dashboard: {name: 'Mine'}}})
    expect(ok.status).toBe(201)
    expect(ok.json.editable).toBe(true)
    personal = ok.json.id
  })

  it('a company dashboard needs account and dashboard_advanced', async () => {
    const c = ctx()
    expect((await c.call('POST', '/toolkit/dashboards.json', {as: 'boss', body: {dashboard: {name: 'Co', shared: true}}})).status).toBe(403)
    expect((await c.call('POST', '/toolkit/dashboards.json', {as: 'adv', body: {dashboard: {name: 'Co', shared: true}}})).status).toBe(403)
    const ok = await c.call('POST', '/toolkit/dashboards.json', {as: 'bossadv', body: {dashboard: {name: 'Co', shared: true, is_default: true, layout: [{key: 'kpi'}, {key: 'todo'}]}}})
    expect(ok.status).toBe(201)
    company = ok.json.id
  })

  it('editable follows decisions.md; viewing needs no permission', async () => {
    const c = ctx()
    const as = async (who: string) => (await c.call('GET', `/toolkit/dashboards/${company}.json`, {as: who})).json
    expect((await as('bossadv')).editable).toBe(true)
    expect((await as('admin')).editable).toBe(true)
    expect((await as('boss')).editable).toBe(false)
    expect((await as('adv')).editable).toBe(false)
    const alice = await as('alice')
    expect(alice).toMatchObject({editable: false, id: company})
    expect(keys(alice.layout)).toEqual(['kpi'])
    expect((await c.call('GET', '/toolkit/dashboards/widgets.json', {as: 'alice'})).json).toMatchObject({current_id: company, layout: [{key: 'kpi'}]})
    expect((await c.call('GET', '/toolkit/dashboards.json', {as: 'alice'})).status).toBe(200)
    expect((await c.call('GET', '/toolkit/dashboards/widget.json?key=kpi', {as: 'alice'})).status).toBe(200)
    expect((await c.call('PATCH', '/toolkit/dashboards/select.json', {as: 'alice', body: {context: 'main', dashboard_id: 'builtin'}})).status).toBe(200)
  })

  it('changing needs the same permissions', async () => {
    const c = ctx()
    expect((await c.call('PATCH', `/toolkit/dashboards/${company}.json`, {as: 'boss', body: {dashboard: {name: 'x'}}})).status).toBe(403)
    expect((await c.call('PATCH', `/toolkit/dashboards/${company}.json`, {as: 'bossadv', body: {dashboard: {name: 'Co 2'}}})).status).toBe(200)
    expect((await c.call('PATCH', `/toolkit/dashboards/${personal}.json`, {as: 'adv', body: {dashboard: {name: 'Mine 2'}}})).status).toBe(200)
  })

  it('without dashboard_advanced an author\'s own dashboard is read-only until the toolkit module is disabled', async () => {
    const c = ctx()
    const own = await c.call('POST', '/toolkit/dashboards.json', {as: 'admin', body: {dashboard: {name: 'A'}}})
    expect(own.status).toBe(201)
    await c.call('POST', '/account/set_field.json?key=account.settings.modules&action_type=remove&value=toolkit', {as: 'admin'})
    const created = await c.call('POST', '/toolkit/dashboards.json', {as: 'alice', body: {dashboard: {name: 'Now allowed'}}})
    expect(created.status).toBe(201)
    await c.call('POST', '/account/set_field.json?key=account.settings.modules&action_type=add&value=toolkit', {as: 'admin'})
    const id = created.json.id
    expect((await c.call('GET', `/toolkit/dashboards/${id}.json`, {as: 'alice'})).json.editable).toBe(false)
    expect((await c.call('PATCH', `/toolkit/dashboards/${id}.json`, {as: 'alice', body: {dashboard: {name: 'x'}}})).status).toBe(403)
    expect((await c.call('DELETE', `/toolkit/dashboards/${id}.json`, {as: 'alice'})).status).toBe(403)
    expect((await c.call('DELETE', `/toolkit/dashboards/${personal}.json`, {as: 'adv'})).status).toBe(204)
  })
})
