import {describe, expect, it} from 'vitest'
import {changeRefusal, isEditable, tileAvailable, visibleLayout, type Viewer} from '../../src/core/dashboards/access.js'
import type {z} from '@hono/zod-openapi'
import {ContextQuery, DashboardBody, DashboardPatchBody, SelectBody, WidgetQuery} from '../../src/core/contract/dashboards.js'
import {svcMessage} from '../../src/core/contract/messages.js'
import {patchRules} from '../../src/core/dashboards/input.js'
import {validationError} from '../../src/http/router.js'
import {baseId, builtinLayout, isSafeUrl, normalizeConfig, normalizeLayout} from '../../src/core/dashboards/layout.js'
import {CONTEXTS, defaultConfig, publicSettings, TILES, tileDef} from '../../src/core/dashboards/tiles.js'
import {isSvcError, validation} from '../../src/core/errors.js'

const APP = '0f8fad5b-d9cb-469f-a165-70867728950e'
const OTHER_APP = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
const opts = {isAllowedApp: (id: string) => id === APP}
const norm = (layout: unknown) => normalizeLayout(layout, opts)
const cfg = (key: string, config: unknown) => normalizeConfig(tileDef(key)!, config)

const LIMIT_5 = ['activity', 'tasks', 'mail', 'chats', 'crm_clients', 'crm_deals', 'crm_contacts', 'crm_notes', 'cms_pages',
  'cms_change_log', 'organize_projects', 'organize_workinfos', 'kb_comments', 'kb_entry_urls', 'marketing_campaigns']
const LIMIT_10 = ['inbox', 'cms_domains', 'kb_entries']

describe('the tile catalog', () => {
  it('holds the 31 fixed keys of the spec, each with a short English name', () => {
    expect(TILES.map((t) => t.key)).toEqual([
      'module_header', 'module_icons', 'kpi', 'quick_actions', 'inbox', 'activity', 'tasks', 'mail', 'chats', 'todo', 'ai_request',
      'crm_stats', 'crm_deals', 'crm_clients', 'crm_contacts', 'crm_notes',
      'cms_pages', 'cms_stats', 'cms_sites', 'cms_change_log', 'cms_domains',
      'organize_stats', 'organize_projects', 'organize_workinfos',
      'kb_stats', 'kb_knowledge_bases', 'kb_entries', 'kb_comments', 'kb_entry_urls',
      'marketing_stats', 'marketing_campaigns',
    ])
    for (const t of TILES) expect(t.name).toMatch(/^[A-Z][A-Za-z :]+$/)
    expect(tileDef('kpi')!.name).toBe('Counters')
    expect(tileDef('module_header')!.name).toBe('Module header')
    expect(tileDef('crm_clients')!.name).toBe('Latest clients')
  })

  it.each([
    ...['module_header', 'module_icons', 'kpi', 'crm_stats', 'cms_stats', 'organize_stats', 'kb_stats', 'marketing_stats', 'marketing_campaigns']
      .map((k) => [k, 'full']),
    ['todo', 'quarter'],
    ...['quick_actions', 'inbox', 'activity', 'tasks', 'mail', 'chats', 'ai_request', 'crm_deals', 'crm_clients', 'crm_contacts', 'crm_notes',
      'cms_pages', 'cms_sites', 'cms_change_log', 'cms_domains', 'organize_projects', 'organize_workinfos', 'kb_knowledge_bases', 'kb_entries',
      'kb_comments', 'kb_entry_urls', `svc_app:${APP}`].map((k) => [k, 'half']),
  ])('default size of %s is %s', (key, size) => {
    expect(tileDef(key)!.defaultSize).toBe(size)
  })

  it.each([
    ['crm_', 'crm'], ['cms_', 'cms'], ['organize_', 'organize'], ['kb_', 'kb'], ['marketing_', 'marketing'],
  ])('tiles %s* need module %s', (prefix, module) => {
    const tiles = TILES.filter((t) => t.key.startsWith(prefix))
    expect(tiles.length).toBeGreaterThan(1)
    for (const t of tiles) expect(t.module).toBe(module)
  })

  it('module and permission of the other tiles', () => {
    const of = (k: string) => [tileDef(k)!.module, tileDef(k)!.permission]
    expect(of('mail')).toEqual(['mail', null])
    for (const k of ['module_header', 'module_icons', 'kpi', 'quick_actions', 'inbox', 'activity', 'tasks', 'chats', 'ai_request']) expect(of(k)).toEqual([null, null])
    expect(of('todo')).toEqual([null, 'todo'])
    expect(of('crm_notes')).toEqual(['crm', 'crm_notes_index'])
    expect(of(`svc_app:${APP}`)).toEqual([null, null])
    expect(tileDef('svc_app:not-a-uuid')).toBeNull()
    expect(tileDef('nope')).toBeNull()
  })

  it('widget settings have the decisions.md shape; config is the default config', () => {
    expect(publicSettings(tileDef('tasks')!)).toEqual({
      scope: {options: ['all', 'mine'], default: 'all', multiple: false, text: false},
      filter: {options: ['all', 'overdue'], default: 'all', multiple: false, text: false},
      limit: {options: ['5', '10', '15', '20'], default: '5', multiple: false, text: false},
    })
    expect(publicSettings(tileDef('quick_actions')!).custom_url).toEqual({options: null, default: null, multiple: false, text: true})
    expect(publicSettings(tileDef('kpi')!).hidden_counters).toMatchObject({default: [], multiple: true})
    expect(defaultConfig(tileDef('inbox')!)).toEqual({scope: 'mine', source: 'all', limit: '10'})
    expect(defaultConfig(tileDef('mail')!)).toEqual({limit: '5'})
    expect(defaultConfig(tileDef('todo')!)).toEqual({})
  })
})

// Every row of the settings table: [tile, setting, allowed values, default (null: none named)].
const SINGLE_ROWS: [string, string, string[], string | null][] = [
  ['activity', 'scope', ['all', 'mine'], 'all'],
  ['tasks', 'scope', ['all', 'mine'], 'all'],
  ['tasks', 'filter', ['all', 'overdue'], 'all'],
  ['mail', 'scope', ['all', 'mine'], null],
  ['chats', 'scope', ['all', 'mine'], null],
  ['mail', 'filter', ['all', 'unread'], null],
  ['chats', 'filter', ['all', 'unread'], null],
  ['crm_clients', 'scope', ['all', 'mine'], null],
  ['crm_contacts', 'scope', ['all', 'mine'], null],
  ['crm_deals', 'scope', ['all', 'mine'], null],
  ['crm_deals', 'filter', ['open', 'all'], 'open'],
  ['organize_projects', 'scope', ['all', 'mine'], null],
  ['organize_projects', 'filter', ['open', 'all'], 'open'],
  ['inbox', 'scope', ['mine', 'mine_unassigned', 'unassigned', 'all'], 'mine'],
  ['inbox', 'source', ['all', 'tasks', 'emails'], 'all'],
  ...LIMIT_5.map((k): [string, string, string[], string] => [k, 'limit', ['5', '10', '15', '20'], '5']),
  ...LIMIT_10.map((k): [string, string, string[], string] => [k, 'limit', ['5', '10', '15', '20'], '10']),
  ['kb_knowledge_bases', 'limit', ['2', '4', '6', '8'], '6'],
  ['cms_sites', 'limit', ['2', '4', '6', '8'], '4'],
  ['module_icons', 'icons', ['main', 'crm', 'cms', 'organize', 'mail', 'kb', 'marketing', 'account'], 'main'],
  ['module_icons', 'title', ['show', 'hide'], 'show'],
  ['module_header', 'module', ['main', 'cms', 'crm', 'organize', 'mail', 'kb', 'marketing', 'account'], 'cms'],
  ['module_header', 'frame', ['none', 'box'], 'none'],
]

describe.each(SINGLE_ROWS)('setting %s.%s', (key, setting, values, def) => {
  it('offers exactly the values of the table with its default', () => {
    const s = publicSettings(tileDef(key)!)[setting]!
    expect([...s.options!].sort()).toEqual([...values].sort())
    expect(s.default).toBe(def)
    expect(s.multiple).toBe(false)
  })
  it.each(values)('keeps %s unless it is the default', (value) => {
    expect(cfg(key, {[setting]: value})).toEqual(value === def ? {} : {[setting]: value})
  })
  it('removes values outside the list and values of the wrong type', () => {
    for (const bad of ['bogus', '', 'ALL', null, true, ['all'], {x: 1}, '7', 3]) expect(cfg(key, {[setting]: bad})).toEqual({})
  })
})

const MULTI_ROWS: [string, string, string[]][] = [
  ['organize_stats', 'hidden_counters', ['organize_my_tasks', 'organize_overdue_tasks', 'organize_projects', 'organize_week_hours']],
  ['crm_stats', 'hidden_counters', ['crm_clients', 'crm_contacts', 'crm_deals_open', 'crm_notes']],
  ['kb_stats', 'hidden_counters', ['kb_knowledge_bases', 'kb_entries', 'kb_categories', 'kb_comments', 'kb_helplinks', 'kb_entry_urls']],
  ['marketing_stats', 'hidden_counters',
    ['marketing_campaigns', 'marketing_sent', 'marketing_open_rate', 'marketing_click_rate', 'marketing_subscribers', 'marketing_unsubscribes']],
  ['cms_stats', 'hidden_counters', ['cms_sites', 'cms_pages', 'cms_articles', 'cms_layouts', 'cms_paragraphs', 'cms_assets']],
  ['kpi', 'hidden_counters', ['open_tasks', 'overdue_tasks', 'unread_emails', 'unread_chats', 'clients_this_month']],
  ['quick_actions', 'hidden_actions',
    ['new_task', 'new_project', 'new_email', 'new_client', 'new_contact', 'new_deal', 'new_note', 'new_ticket', 'new_cms_page']],
]

describe.each(MULTI_ROWS)('list setting %s.%s', (key, setting, values) => {
  it('offers the values of the table, default empty (everything shown)', () => {
    expect(publicSettings(tileDef(key)!)[setting]).toEqual({options: values, default: [], multiple: true, text: false})
  })
  it('keeps allowed values once each, in catalog order, and drops the rest', () => {
    const reversed = [...values].reverse()
    expect(cfg(key, {[setting]: [...reversed, 'bogus', values[0], 7, null]})).toEqual({[setting]: values})
    expect(cfg(key, {[setting]: [values[1]]})).toEqual({[setting]: [values[1]]})
  })
  it('omits an empty list (the default) and removes a non-list', () => {
    expect(cfg(key, {[setting]: []})).toEqual({})
    expect(cfg(key, {[setting]: ['bogus']})).toEqual({})
    expect(cfg(key, {[setting]: values[0]})).toEqual({})
  })
})

describe('quick_actions texts', () => {
  it('custom_name: up to 60 characters, trimmed; longer, empty or non-text removed', () => {
    expect(cfg('quick_actions', {custom_name: '  Open wiki '})).toEqual({custom_name: 'Open wiki'})
    expect(cfg('quick_actions', {custom_name: 'x'.repeat(60)})).toEqual({custom_name: 'x'.repeat(60)})
    expect(cfg('quick_actions', {custom_name: 'ż'.repeat(60)})).toEqual({custom_name: 'ż'.repeat(60)})
    for (const bad of ['x'.repeat(61), '', '   ', 5, null, ['a'], 'a\nb']) expect(cfg('quick_actions', {custom_name: bad})).toEqual({})
  })

  it.each([
    'https://example.com/wiki', 'http://example.com', 'HTTPS://Example.com/a?b=c#d', '/crm/deals', '/', '/a/b?c=1',
  ])('custom_url keeps %s', (url) => {
    expect(cfg('quick_actions', {custom_url: url})).toEqual({custom_url: url})
  })

  it.each([
    'javascript:alert(1)', 'JavaScript:alert(1)', ' javascript:alert(1)', '//evil.example/x', '/\\evil.example', 'data:text/html,x',
    'ftp://example.com', 'example.com', 'https://', 'http:///path', 'https://exa mple.com', 'mailto:a@b.c', '',
    `https://example.com/${'a'.repeat(481)}`, 'vbscript:x', 'https:\\\\evil.example', '/path\nwith-newline',
  ])('custom_url removes %s', (url) => {
    expect(cfg('quick_actions', {custom_url: url})).toEqual({})
  })

  it('custom_url of exactly 500 characters is kept', () => {
    const url = `https://example.com/${'a'.repeat(500 - 20)}`
    expect(url.length).toBe(500)
    expect(cfg('quick_actions', {custom_url: url})).toEqual({custom_url: url})
    expect(isSafeUrl('//x')).toBe(false)
  })
})

describe('normalizeConfig', () => {
  it('removes unknown settings, settings of other tiles, and a config that is not an object', () => {
    expect(cfg('activity', {scope: 'mine', colour: 'red', filter: 'overdue', limit: '10'})).toEqual({scope: 'mine', limit: '10'})
    expect(cfg('todo', {anything: 1})).toEqual({})
    expect(cfg('activity', 'scope=mine')).toEqual({})
    expect(cfg('activity', ['mine'])).toEqual({})
    expect(cfg('activity', null)).toEqual({})
  })
  it('takes a numeric limit as its string', () => {
    expect(cfg('activity', {limit: 10})).toEqual({limit: '10'})
    expect(cfg('activity', {limit: 5})).toEqual({})
    expect(cfg('activity', {limit: 7})).toEqual({})
    expect(cfg('activity', {limit: 10.5})).toEqual({})
  })
  it('does not read inherited members', () => {
    expect(cfg('activity', Object.create({scope: 'mine'}))).toEqual({})
  })
})

describe('normalizeLayout', () => {
  it('removes unknown keys and items that are not objects; keeps order', () => {
    expect(norm([{key: 'kpi'}, {key: 'nope'}, 'todo', null, 7, {key: 3}, {}, {key: 'todo'}]).map((i) => i.key)).toEqual(['kpi', 'todo'])
  })
  it('answers [] for a layout that is not an array', () => {
    expect(norm({key: 'kpi'})).toEqual([])
    expect(norm(undefined)).toEqual([])
  })
  it('keeps at most 60 items (the first 60 known ones)', () => {
    const items = [{key: 'nope'}, ...Array.from({length: 70}, (_, i) => ({key: 'activity', id: `a${i}`}))]
    const out = norm(items)
    expect(out).toHaveLength(60)
    expect(out[0]!.id).toBe('a0')
    expect(out[59]!.id).toBe('a59')
  })
  it('gives every item all four members; unknown or missing size → the default size', () => {
    expect(norm([{key: 'kpi', size: 'huge'}, {key: 'todo'}, {key: 'tasks', size: 'three_quarters', config: {scope: 'mine'}}])).toEqual([
      {id: 'kpi', key: 'kpi', size: 'full', config: {}},
      {id: 'todo', key: 'todo', size: 'quarter', config: {}},
      {id: 'tasks', key: 'tasks', size: 'three_quarters', config: {scope: 'mine'}},
    ])
  })
  it.each(['quarter', 'half', 'three_quarters', 'full'])('keeps size %s', (size) => {
    expect(norm([{key: 'kpi', size}])[0]!.size).toBe(size)
  })
  it('keeps valid unique ids; assigns <key>, <key>-2, ... to missing, invalid and duplicated ones', () => {
    const out = norm([
      {key: 'activity'},
      {key: 'activity', id: 'activity'},
      {key: 'activity', id: 'Bad Id'},
      {key: 'activity', id: 'mine_1'},
      {key: 'activity', id: 'mine_1'},
      {key: 'activity', id: 'x'.repeat(33)},
      {key: 'activity', id: ''},
      {key: 'activity', id: 12},
      {key: 'kpi', id: 'x'.repeat(32)},
      {key: 'kpi', id: 'a-b_c-9'},
    ])
    expect(out.map((i) => i.id)).toEqual([
      'activity-2', 'activity', 'activity-3', 'mine_1', 'activity-4', 'activity-5', 'activity-6', 'activity-7', 'x'.repeat(32), 'a-b_c-9',
    ])
    for (const i of out) expect(i.id).toMatch(/^[a-z0-9_-]{1,32}$/)
  })
  it('keeps generated ids within 32 characters', () => {
    expect(baseId('kb_knowledge_bases')).toBe('kb_knowledge_bases')
    const ids = norm(Array.from({length: 12}, () => ({key: 'organize_workinfos'}))).map((i) => i.id)
    expect(new Set(ids).size).toBe(12)
    expect(ids.slice(0, 3)).toEqual(['organize_workinfos', 'organize_workinfos-2', 'organize_workinfos-3'])
  })
  it('places an svc_app tile only for an allowed (active, own) app; its id is id-safe', () => {
    const out = norm([
      {key: `svc_app:${APP}`}, {key: `svc_app:${OTHER_APP}`}, {key: 'svc_app:nope'}, {key: `svc_app:${APP.toUpperCase()}`, size: 'full'},
    ])
    expect(out).toEqual([
      {id: 'svc_app-0f8fad5b', key: `svc_app:${APP}`, size: 'half', config: {}},
      {id: 'svc_app-0f8fad5b-2', key: `svc_app:${APP}`, size: 'full', config: {}},
    ])
  })
  it('keeps the same tile several times, each with its own config', () => {
    const out = norm([{key: 'tasks', config: {scope: 'mine'}}, {key: 'tasks', config: {filter: 'overdue'}}])
    expect(out.map((i) => i.config)).toEqual([{scope: 'mine'}, {filter: 'overdue'}])
  })
  it('applies the isAvailable filter', () => {
    const out = normalizeLayout([{key: 'kpi'}, {key: 'crm_deals'}], {...opts, isAvailable: (t) => t.module === null})
    expect(out.map((i) => i.key)).toEqual(['kpi'])
  })
  it('is idempotent', () => {
    const once = norm([{key: 'tasks', size: 'x', config: {scope: 'mine', limit: 5}}, {key: 'tasks'}, {key: `svc_app:${APP}`}])
    expect(norm(once)).toEqual(once)
  })
})

describe('builtin layouts', () => {
  const keys = (c: (typeof CONTEXTS)[number]) => builtinLayout(c).map((i) => [i.key, i.config])
  it('exist for the eight contexts exactly as the table', () => {
    expect(keys('main')).toEqual([['module_header', {module: 'main', frame: 'box'}], ['module_icons', {}]])
    expect(keys('crm')).toEqual([['module_header', {module: 'crm'}], ['crm_stats', {}], ['crm_deals', {}], ['crm_clients', {}], ['crm_contacts', {}], ['crm_notes', {}]])
    expect(keys('cms')).toEqual([['module_header', {}], ['cms_stats', {}], ['cms_sites', {}], ['cms_domains', {}], ['cms_pages', {}], ['cms_change_log', {}]])
    expect(keys('organize')).toEqual([['module_header', {module: 'organize', frame: 'box'}], ['module_icons', {icons: 'organize', title: 'hide'}]])
    expect(keys('mail')).toEqual([['module_header', {module: 'mail', frame: 'box'}], ['module_icons', {icons: 'mail', title: 'hide'}]])
    expect(keys('kb')).toEqual([['module_header', {module: 'kb'}], ['kb_stats', {}], ['kb_knowledge_bases', {}], ['kb_comments', {}], ['kb_entries', {}], ['kb_entry_urls', {}]])
    expect(keys('marketing')).toEqual([['module_header', {module: 'marketing'}], ['marketing_stats', {}], ['marketing_campaigns', {}]])
    expect(keys('account')).toEqual([['module_header', {module: 'account', frame: 'box'}], ['module_icons', {icons: 'account', title: 'hide'}]])
  })
  it('carry ids and default sizes', () => {
    expect(builtinLayout('marketing')).toEqual([
      {id: 'module_header', key: 'module_header', size: 'full', config: {module: 'marketing'}},
      {id: 'marketing_stats', key: 'marketing_stats', size: 'full', config: {}},
      {id: 'marketing_campaigns', key: 'marketing_campaigns', size: 'full', config: {}},
    ])
  })
})

describe('availability and permissions', () => {
  const viewer = (permissions: string[], modules: string[], role: 'admin' | 'user' = 'user'): Viewer =>
    ({user: {id: 1, role, permissions}, modules, isActiveApp: (id) => id === APP})
  it('a tile needs its module and its permission; an app tile an active app', () => {
    expect(tileAvailable(viewer([], []), tileDef('kpi')!)).toBe(true)
    expect(tileAvailable(viewer([], []), tileDef('crm_deals')!)).toBe(false)
    expect(tileAvailable(viewer([], ['crm']), tileDef('crm_deals')!)).toBe(true)
    expect(tileAvailable(viewer([], ['crm']), tileDef('crm_notes')!)).toBe(false)
    expect(tileAvailable(viewer(['crm_notes_index'], ['crm']), tileDef('crm_notes')!)).toBe(true)
    expect(tileAvailable(viewer([], ['crm'], 'admin'), tileDef('crm_notes')!)).toBe(true)
    expect(tileAvailable(viewer([], []), tileDef('todo')!)).toBe(false)
    expect(tileAvailable(viewer(['todo'], []), tileDef('todo')!)).toBe(true)
    expect(tileAvailable(viewer([], []), tileDef(`svc_app:${APP}`)!)).toBe(true)
    expect(tileAvailable(viewer([], []), tileDef(`svc_app:${OTHER_APP}`)!)).toBe(false)
  })
  it('visibleLayout filters per viewer', () => {
    expect(visibleLayout(viewer([], ['crm']), builtinLayout('crm')).map((i) => i.key)).toEqual(
      ['module_header', 'crm_stats', 'crm_deals', 'crm_clients', 'crm_contacts'])
    expect(visibleLayout(viewer([], []), builtinLayout('crm')).map((i) => i.key)).toEqual(['module_header'])
  })
  it('changes: company needs account; toolkit adds dashboard_advanced', () => {
    expect(changeRefusal({role: 'user', permissions: []}, [], false)).toBeNull()
    expect(changeRefusal({role: 'user', permissions: []}, [], true)).toMatch(/account/)
    expect(changeRefusal({role: 'user', permissions: ['account']}, [], true)).toBeNull()
    expect(changeRefusal({role: 'user', permissions: ['account']}, ['toolkit'], true)).toMatch(/dashboard_advanced/)
    expect(changeRefusal({role: 'user', permissions: []}, ['toolkit'], false)).toMatch(/dashboard_advanced/)
    expect(changeRefusal({role: 'user', permissions: ['dashboard_advanced']}, ['toolkit'], false)).toBeNull()
    expect(changeRefusal({role: 'admin', permissions: []}, ['toolkit'], true)).toBeNull()
  })
  it('editable', () => {
    const alice = {id: 2, role: 'user' as const, permissions: []}
    expect(isEditable(alice, [], {shared: false, created_by_id: 2})).toBe(true)
    expect(isEditable(alice, [], {shared: false, created_by_id: 3})).toBe(false)
    expect(isEditable(alice, [], {shared: true, created_by_id: 2})).toBe(false)
    expect(isEditable(alice, ['toolkit'], {shared: false, created_by_id: 2})).toBe(false)
  })
})

describe('request validation', () => {
  // The route's schemas (core/contract/dashboards.ts) through the one hook of src/http/router.ts, as `handle` runs them.
  const parse = async (schema: z.ZodType, value: unknown) => {
    const r = await schema.safeParseAsync(value, {error: svcMessage, reportInput: true})
    if (r.success) return r.data
    throw validationError('json', r.error.issues, schema)
  }
  const parseCreate = async (d: unknown) => ((await parse(DashboardBody, {dashboard: d})) as {dashboard: unknown}).dashboard
  /** The schema's messages and the rules against the stored dashboard, in one 422 (as the PATCH route's `fixedMembers`). */
  const parseUpdate = async (d: Record<string, unknown>, current: {context: string; shared: boolean}) => {
    const rules = patchRules(d, current)
    let out: unknown
    let schemaFields: Record<string, unknown> = {}
    try {
      out = ((await parse(DashboardPatchBody, {dashboard: d})) as {dashboard: unknown}).dashboard
    } catch (e) {
      if (!isSvcError(e) || e.status !== 422) throw e
      schemaFields = e.details!
    }
    if (rules || Object.keys(schemaFields).length) throw validation({...(schemaFields as Record<string, string[]>), ...rules})
    return out
  }
  const parseSelect = (body: unknown) => parse(SelectBody, body) as Promise<{context: unknown; target: unknown}>
  const fields = async (fn: () => Promise<unknown>) => {
    try {
      await fn()
    } catch (e) {
      if (isSvcError(e) && e.status === 422) return e.details
      throw e
    }
    throw new Error('no 422')
  }
  it('create: name required, max 100; context one of eight; booleans; is_default only when shared', async () => {
    expect(await parseCreate({name: ' Mine '})).toEqual({name: 'Mine', context: 'main', layout: undefined, shared: false, is_default: false})
    expect(((await parseCreate({name: 'x'.repeat(100), context: 'kb'})) as {context: string}).context).toBe('kb')
    expect(await fields(() => parseCreate({}))).toEqual({name: ["can't be blank"]})
    expect(await fields(() => parseCreate({name: '  '}))).toEqual({name: ["can't be blank"]})
    expect(await fields(() => parseCreate({name: 'x'.repeat(101)}))).toEqual({name: ['is too long (maximum is 100 characters)']})
    expect(await fields(() => parseCreate({name: 5}))).toEqual({name: ['must be a string']})
    expect(Object.keys((await fields(() => parseCreate({name: 'a', context: 'toolkit', layout: 'x', shared: 'yes', is_default: 1})))!).sort())
      .toEqual(['context', 'is_default', 'layout', 'shared'])
    expect(await fields(() => parseCreate({name: 'a', is_default: true}))).toEqual({is_default: [expect.stringContaining('company')]})
  })
  it('update: any subset; context and shared cannot change', async () => {
    const current = {context: 'main', shared: false}
    expect(await parseUpdate({}, current)).toEqual({})
    expect(await parseUpdate({name: 'b', context: 'main', shared: false, id: 9, editable: true}, current)).toEqual({name: 'b'})
    expect(await fields(() => parseUpdate({context: 'crm', shared: true}, current))).toEqual({context: ['cannot be changed'], shared: ['cannot be changed']})
    expect(await fields(() => parseUpdate({is_default: true}, current))).toEqual({is_default: [expect.any(String)]})
    expect(await parseUpdate({is_default: false}, current)).toEqual({is_default: false})
  })
  it('select: id, "builtin" or empty string', async () => {
    expect(await parseSelect({context: 'crm', dashboard_id: 4})).toEqual({context: 'crm', target: {kind: 'dashboard', id: 4}})
    expect(await parseSelect({dashboard_id: '4'})).toEqual({context: null, target: {kind: 'dashboard', id: 4}})
    expect((await parseSelect({dashboard_id: 'builtin'})).target).toEqual({kind: 'builtin'})
    expect((await parseSelect({dashboard_id: ''})).target).toEqual({kind: 'default'})
    for (const bad of [undefined, null, 0, -1, 1.5, 'x', true, [1]]) expect(await fields(() => parseSelect({dashboard_id: bad}))).toHaveProperty('dashboard_id')
    expect(await fields(() => parseSelect({context: 'nope', dashboard_id: ''}))).toHaveProperty('context')
  })
  it('a query outside the eight contexts, or a widget without key, is a field', async () => {
    expect(await fields(() => parse(ContextQuery, {context: 'nope'}))).toEqual({context: [expect.stringContaining('is not included in the list')]})
    expect(await parse(ContextQuery, {context: 'crm'})).toEqual({context: 'crm'})
    expect(await fields(() => parse(WidgetQuery, {}))).toEqual({key: ["can't be blank"]})
  })
})
