// User administration over the API (issue 27, the console's account screen): admins of an
// account list its users, create one (its token shown once) and revoke every token and session
// of a user. Nobody else may; nobody reaches another account's users; bad input is a 422.
import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

describeBothTransports('user administration', undefined, (ctx) => {
  it('an admin creates a user: 201 with the user and a token that works, shown once (never in the list)', async () => {
    const c = ctx()
    const r = await c.call('POST', '/svc/users.json', {body: {user: {login: 'carol', role: 'manager', permissions: ['todo'], teams: ['sales'], department: 'north', email: 'c@x.io', name: 'Carol'}}})
    expect(r.status, r.text).toBe(201)
    expect(r.headers.get('cache-control')).toBe('no-store')
    expect(r.json.user).toMatchObject({login: 'carol', role: 'manager', permissions: ['todo'], team_names: ['sales'], department_names: ['north'], email: 'c@x.io', name: 'Carol', account_id: c.world.accounts.acme})
    expect(r.json.token).toMatch(/^[A-Za-z0-9_-]{40,}$/)
    const me = await c.call('GET', '/svc/me.json', {as: {token: r.json.token}})
    expect(me.json).toMatchObject({login: 'carol', role: 'manager'})
    const list = await c.call('GET', '/svc/users.json')
    expect(list.status).toBe(200)
    expect(list.json.map((u: {login: string}) => u.login)).toEqual(['admin', 'alice', 'carol'])
    expect(list.text).not.toContain(r.json.token)
    expect((await c.call('POST', '/svc/users.json', {body: {user: {login: 'carol'}}})).json).toEqual({login: ['has already been taken']})
  })

  it('revokes every token and session of a user: their token stops working at once', async () => {
    const c = ctx()
    const created = (await c.call('POST', '/svc/users.json', {body: {user: {login: 'dave'}}})).json
    const session = await c.call('POST', '/svc/login', {as: null, rawBody: new URLSearchParams({token: created.token, next: '/'}).toString(), headers: {'content-type': 'application/x-www-form-urlencoded'}})
    expect(session.status).toBe(303)
    const r = await c.call('POST', `/svc/users/${created.user.id}/revoke_tokens.json`)
    expect(r.status, r.text).toBe(200)
    expect(r.json).toEqual({user_id: created.user.id, revoked: 2})
    expect((await c.call('GET', '/svc/me.json', {as: {token: created.token}})).status).toBe(401)
    expect((await c.call('POST', `/svc/users/${created.user.id}/revoke_tokens.json`)).json.revoked).toBe(0)
  })

  it('only admins, only their own account; bad input is a 422 naming each field, never a 5xx', async () => {
    const c = ctx()
    for (const [method, path, body] of [['GET', '/svc/users.json'], ['POST', '/svc/users.json', {user: {login: 'x'}}], ['POST', `/svc/users/${c.world.users.admin!.id}/revoke_tokens.json`]] as const) {
      expect((await c.call(method, path, {as: 'alice', body})).status).toBe(403)
      expect((await c.call(method, path, {as: null, body})).status).toBe(401)
    }
    // Mallory is an admin of another account: acme's users are not hers to see or revoke.
    expect((await c.call('GET', '/svc/users.json', {as: 'mallory'})).json.map((u: {login: string}) => u.login)).toEqual(['mallory'])
    expect((await c.call('POST', `/svc/users/${c.world.users.alice!.id}/revoke_tokens.json`, {as: 'mallory'})).status).toBe(404)
    expect((await c.call('GET', '/svc/me.json', {as: 'alice'})).status).toBe(200)
    for (const id of ['0', '999999', 'abc', '1e3', '99999999999999999999']) expect((await c.call('POST', `/svc/users/${id}/revoke_tokens.json`)).status).toBe(404)
    const bad = await c.call('POST', '/svc/users.json', {body: {user: {login: 'a b', role: 'root', permissions: ['Bad Name'], teams: [' '], department: 7}}})
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.json).sort()).toEqual(['department', 'login', 'permissions[0]', 'role', 'teams[0]'])
    expect((await c.call('POST', '/svc/users.json', {body: {}})).status).toBe(422)
    expect((await c.call('POST', '/svc/users.json', {body: {user: {login: '__proto__', role: 'admin'}}})).status).toBe(201)
  })
})

describeBothTransports('per-user settings', undefined, (ctx) => {
  it('each user keeps their own settings on the server: set, replace, remove; others never see them', async () => {
    const c = ctx()
    expect((await c.call('GET', '/svc/me/settings.json')).json).toEqual({settings: {}})
    const set = await c.call('PATCH', '/svc/me/settings.json', {body: {settings: {'grid:1:': {hidden: ['note'], order: ['title', 'id']}, theme: 'dark'}}})
    expect(set.status, set.text).toBe(200)
    expect(set.json).toEqual({settings: {'grid:1:': {hidden: ['note'], order: ['title', 'id']}, theme: 'dark'}})
    expect((await c.call('PATCH', '/svc/me/settings.json', {body: {settings: {theme: null, 'grid:1:': {hidden: []}}}})).json).toEqual({settings: {'grid:1:': {hidden: []}}})
    expect((await c.call('GET', '/svc/me/settings.json')).json).toEqual({settings: {'grid:1:': {hidden: []}}})
    expect((await c.call('GET', '/svc/me/settings.json', {as: 'alice'})).json).toEqual({settings: {}})
    expect((await c.call('GET', '/svc/me/settings.json', {as: 'mallory'})).json).toEqual({settings: {}})
    expect((await c.call('GET', '/svc/me/settings.json', {as: null})).status).toBe(401)
  })

  it('bad keys, values too large and more than 200 keys are a 422 and change nothing', async () => {
    const c = ctx()
    const bad = await c.call('PATCH', '/svc/me/settings.json', {as: 'alice', body: {settings: {'a b': 1, ok: 'x'.repeat(17 * 1024), __proto__x: 1}}})
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.json).sort()).toEqual(['settings.a b', 'settings.ok'])
    // The envelope's member sent as a non-object is a 400, as for every resource (decisions.md).
    expect((await c.call('PATCH', '/svc/me/settings.json', {as: 'alice', body: {settings: 'no'}})).status).toBe(400)
    // Keys named like Object.prototype members are data like any other.
    expect((await c.call('PATCH', '/svc/me/settings.json', {as: 'alice', body: {settings: {toString: {x: 1}, constructor: 1}}})).json).toEqual({settings: {constructor: 1, toString: {x: 1}}})
    const many = Object.fromEntries(Array.from({length: 199}, (_, i) => [`k${i}`, i]))
    const over = await c.call('PATCH', '/svc/me/settings.json', {as: 'alice', body: {settings: many}})
    expect(over.status).toBe(422)
    expect(over.json).toEqual({settings: ['at most 200 settings per user: remove some (a null value removes one)']})
    expect(Object.keys((await c.call('GET', '/svc/me/settings.json', {as: 'alice'})).json.settings)).toEqual(['constructor', 'toString'])
  })
})
