import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createClient, isSvcError, type SvcClient} from '../../src/sdk.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'

describe('createClient (the typed client of the package) against a real server', () => {
  let world: World
  let http: Transport
  let svc: SvcClient
  beforeAll(async () => {
    world = await createWorld()
    http = await overHttp(world.app)
    svc = createClient({url: http.origin, token: world.users.admin!.token})
  })
  afterAll(async () => {
    await http.close()
    await world.close()
  })

  it('calls operations by id: path params, query, body; JSON, Markdown and 204 answers', async () => {
    expect((await svc.getMe()).login).toBe('admin')
    const created = await svc.createPrompt({body: {prompt: {name: 'Helper', code: 'helper', content: 'Hi {{ who }}'}}})
    expect(created).toMatchObject({name: 'Helper', code: 'helper', kind: 'chat'})
    expect((await svc.getPrompt({params: {id: created.id}})).id).toBe(created.id)
    expect(await svc.listPrompts({query: {code: 'helper'}})).toHaveLength(1)
    expect(await svc.renderPrompt({params: {code: 'helper'}, query: {who: 'Ada'}})).toBe('Hi Ada')
    expect(await svc.call('deletePrompt', {params: {id: created.id}})).toBeUndefined()
    const db = await svc.createDb({body: {db: {name: 'Leads', code: 'leads', schema: {fields: {name: 'string'}}}}})
    await svc.createRecord({params: {db_id: 'leads'}, body: {record: {data: {name: 'Ada'}}}})
    expect(await svc.searchRecords({params: {db_id: db.id}, query: {q: 'Ada'}})).toMatchObject([{name: 'Ada'}])
  })

  it('throws SvcError with the status and the 422 field map', async () => {
    const error = await svc.createPrompt({body: {prompt: {name: ''}}}).catch((e: unknown) => e)
    expect(isSvcError(error)).toBe(true)
    expect(error).toMatchObject({status: 422, code: 'validation', details: {name: ["can't be blank"]}})
    await expect(svc.getPrompt({params: {id: 'nope'}})).rejects.toMatchObject({status: 404, message: 'prompt not found'})
    const anonymous = createClient({url: http.origin})
    await expect(anonymous.listDbs()).rejects.toMatchObject({status: 401})
  })

  it('encodes path parameters', async () => {
    await expect(svc.getDb({params: {id: '../me'}})).rejects.toMatchObject({status: 404})
  })
})
