// Users and API tokens in the journal (docs/history.md "Users and tokens"): a user added, a token
// issued or revoked are entries (kind user / token) with their door and actor, never holding a
// token or its hash — not in the stored entries, not in /svc/history.json or an entry's detail, not
// in `svc history`. Only admins read them; they are never restored. Both stores, both transports.
import {createHash} from 'node:crypto'
import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {rawQuery} from '../helpers/pg.js'
import {describeBothTransports} from '../helpers/scenarios.js'
import {tempDir} from '../helpers/world.js'

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

describeBothTransports('users and tokens in the journal', undefined, (ctx) => {
  it('journals a user added and its tokens issued and revoked, without the token or its hash; admins alone read them; never restored', async () => {
    const {call} = ctx()
    const made = await call('POST', '/svc/users.json', {body: {user: {login: 'newbie', name: 'New Bie', role: 'user'}}, headers: {'x-svc-door': 'cli'}})
    expect(made.status).toBe(201)
    const {user, token} = made.json
    expect(typeof token).toBe('string')
    const revoked = await call('POST', `/svc/users/${user.id}/revoke_tokens.json`)
    expect(revoked.json).toEqual({user_id: user.id, revoked: 1})

    const admin = ctx().world.users.admin!
    const users = (await call('GET', `/svc/history.json?kind=user&id=${user.id}`)).json
    expect(users).toEqual([expect.objectContaining({kind: 'user', op: 'create', door: 'cli', summary: 'user New Bie (newbie) created'})])
    expect(users[0].actor).toEqual({type: 'user', id: String(admin.id), name: 'admin'})
    const tokens = (await call('GET', '/svc/history.json?kind=token')).json.filter((e: any) => e.summary.includes(`of user #${user.id}`))
    expect(tokens.map((e: any) => `${e.op} ${e.door}`)).toEqual(['delete api', 'create cli'])
    expect(tokens[0].summary).toMatch(/^token #\d+ \(api\) of user #\d+ revoked$/)

    const shown = await call('GET', `/svc/history/${tokens[1].bookmark}.json?diff=1`)
    expect(shown.status).toBe(200)
    expect(shown.json.version).toEqual(expect.objectContaining({user_id: user.id, kind: 'api', expires_at: null}))
    expect(shown.json.version).not.toHaveProperty('token_hash')
    const userShown = await call('GET', `/svc/history/${users[0].bookmark}.json`)
    expect(userShown.json.version).toEqual(expect.objectContaining({id: user.id, login: 'newbie', role: 'user'}))

    // The secret is nowhere: the answers, every stored entry.
    const everything = [
      (await call('GET', '/svc/history.json?limit=100')).text, shown.text, userShown.text,
      JSON.stringify(await rawQuery(ctx().world, 'SELECT * FROM journal')),
    ].join('\n')
    expect(everything).not.toContain(token)
    expect(everything).not.toContain(sha256(token))

    // Only admins: a user of the account sees none of it, not even by bookmark.
    const asAlice = (await call('GET', '/svc/history.json?limit=100', {as: 'alice'})).json
    expect(asAlice.filter((e: any) => e.kind === 'user' || e.kind === 'token')).toEqual([])
    expect((await call('GET', `/svc/history.json?kind=token`, {as: 'alice'})).json).toEqual([])
    expect((await call('GET', `/svc/history/${tokens[1].bookmark}.json`, {as: 'alice'})).status).toBe(404)
    expect((await call('GET', `/svc/history/${users[0].bookmark}.json`, {as: 'mallory'})).status).toBe(404)

    // Events are not restored: one by one a 422; an account's restore since a time leaves them.
    const restore = await call('POST', `/svc/history/${tokens[0].bookmark}/restore.json`)
    expect(restore.status).toBe(422)
    expect(restore.text).toContain('cannot be restored')
    const since = await call('POST', '/svc/history/restore.json', {body: {since: users[0].at, dry_run: true}})
    expect(since.status).toBe(200)
    expect([...since.json.restored, ...since.json.conflicts].filter((r: any) => r.kind === 'user' || r.kind === 'token')).toEqual([])
  })

  it('a console sign-in is not a token event; revoking the user\'s tokens journals the API token, not the session', async () => {
    const {call} = ctx()
    const created = (await call('POST', '/svc/users.json', {body: {user: {login: 'signer'}}})).json
    const ofUser = async () => (await call('GET', '/svc/history.json?kind=token&limit=100')).json.filter((e: any) => e.summary.includes(`of user #${created.user.id}`))
    const session = await call('POST', '/svc/login', {as: null, rawBody: new URLSearchParams({token: created.token, next: '/'}).toString(),
      headers: {'content-type': 'application/x-www-form-urlencoded'}})
    expect(session.status).toBe(303)
    expect((await ofUser()).map((e: any) => e.op)).toEqual(['create'])
    expect((await call('POST', `/svc/users/${created.user.id}/revoke_tokens.json`)).json.revoked).toBe(2)
    expect((await ofUser()).map((e: any) => e.op)).toEqual(['delete', 'create'])
  })
})

describe('svc admin user add / token and svc history', () => {
  const data = tempDir()
  afterAll(() => rmSync(data, {recursive: true, force: true}))

  it('journals the user and its tokens through door cli; svc history shows them without the token', async () => {
    const added = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
    expect(added.code, added.stderr).toBe(0)
    const renewed = await svc(['admin', 'user', 'token', 'admin', '--yes', '--data', data, '--json'])
    expect(renewed.code, renewed.stderr).toBe(0)
    const secrets = [added.json.token, renewed.json.token]
    const listed = await svc(['history', '--json', '--data', data])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json.map((e: {kind: string; op: string; door: string}) => `${e.kind} ${e.op} ${e.door}`))
      .toEqual(['token create cli', 'token delete cli', 'token create cli', 'user create cli'])
    const text = await svc(['history', '--data', data])
    expect(text.stdout).toMatch(/token #\d+ \(api\) of user #\d+ revoked/)
    for (const out of [listed.stdout, text.stdout]) {
      for (const s of secrets) {
        expect(out).not.toContain(s)
        expect(out).not.toContain(sha256(s))
      }
    }
  })
})
