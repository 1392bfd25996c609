import {afterAll, beforeAll, expect, it} from 'vitest'
import {createFlowScheduler} from '../../src/services/flows/scheduler.js'
import {describeBothTransports, type Ctx, type Reply} from '../helpers/scenarios.js'
import {cityWeather, flowCalling, heatCheck, SECRET, startStub, weatherConnector, type Stub} from './stub.js'

/**
 * The Scheduled flow pattern end to end: a connector to a stub API on loopback, flows of
 * connector → mutation → if, run by an app action, by a cron (run now and the scheduler) and by
 * hand. Every answer is scanned for the connector's secret.
 */
describeBothTransports('weather flow: actions, crons, manual runs', undefined, (ctx) => {
  let stub: Stub
  const bodies: string[] = []
  let appId = ''
  let heatCheckId = 0

  /** ctx().call, remembering every body for the secret scan. */
  const call = async (...args: Parameters<Ctx['call']>): Promise<Reply> => {
    const reply = await ctx().call(...args)
    bodies.push(reply.text)
    return reply
  }

  const waitEnded = async (path: string, as: string | null = 'admin'): Promise<Reply> => {
    for (let i = 0; i < 400; i++) {
      const reply = await call('GET', path, {as})
      if (reply.json?.status !== 'pending') return reply
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`${path} stayed pending`)
  }

  /** An action reply, polled to its end when the machine was too slow to finish within the action's wait. */
  const actionResult = async (name: string, reply: Reply, as: string | null = 'admin') =>
    reply.json?.status === 'pending'
      ? (await waitEnded(`/svc/apps/${appId}/action/${name}/status?flow_process_id=${reply.json.flow_process_id}`, as)).json
      : reply.json

  beforeAll(async () => {
    stub = await startStub()
    stub.temperatures.Cairo = 35
    stub.temperatures.Oslo = 4
    const connector = await call('POST', '/svc/resources.json', {body: {resource: weatherConnector(stub.url)}})
    expect(connector.status, connector.text).toBe(201)
    for (const flow of [heatCheck, cityWeather, flowCalling('broken_flow', 'fail'), flowCalling('slow_flow', 'slow')]) {
      const r = await call('POST', '/svc/resources.json', {body: {resource: flow}})
      expect(r.status, r.text).toBe(201)
      if (flow.code === 'heat_check') heatCheckId = r.json.id
    }
    const app = await call('POST', '/svc/apps.json', {body: {app: {
      name: 'Weather board', app_engine: 'html', css_engine: 'none', source_code: '<p>weather</p>',
      actions: [
        {action: 'weather', flow_code: 'city_weather', description: 'Weather of a city'},
        {action: 'open_weather', flow_code: 'city_weather', public: true},
        {action: 'broken', flow_code: 'broken_flow'},
        {action: 'slow', flow_code: 'slow_flow'},
        {action: 'ghost', flow_code: 'no_such_flow'},
      ],
    }}})
    expect(app.status, app.text).toBe(201)
    appId = app.json.id
  })

  afterAll(async () => {
    await stub?.close()
  })

  it('stores the connector secret write-only', async () => {
    const list = await call('GET', '/svc/resources.json?kind=svc/custom_connector')
    expect(list.status).toBe(200)
    expect(list.json).toEqual([expect.objectContaining({code: 'weather', url: stub.url, has_secret_token: true})])
    expect(list.json[0]).not.toHaveProperty('secret_token')
    const one = await call('GET', `/svc/resources/${list.json[0].id}.json`)
    expect(one.json).toMatchObject({kind: 'svc/custom_connector', fields: {methods: expect.arrayContaining([expect.objectContaining({name: 'current', http_method: 'GET', public: false})])}})
  })

  it('runs a flow by hand: connector → mutation → if, the secret reaching the API as a bearer header', async () => {
    stub.requests.length = 0
    const run = await call('POST', `/svc/resources/${heatCheckId}/run.json`, {body: {input: {note: 'by hand'}}})
    expect(run.status, run.text).toBe(201)
    const ended = run.json.status === 'pending' ? (await waitEnded(`/connect/flow_processes/${run.json.id}.json`)).json : run.json
    expect(ended).toMatchObject({
      status: 'finished', trigger: 'manual', flow_code: 'heat_check', input: {note: 'by hand'}, error: null, steps: 4,
      output: {note: 'by hand', city: 'Cairo', threshold: 30, json_object: {city: 'Cairo', temperature: 35}, alert: 'hot in Cairo', temperature: 35},
    })
    expect(ended.duration_ms).toEqual(expect.any(Number))
    expect(ended.finished_at).toEqual(expect.any(String))
    expect(stub.requests).toHaveLength(1)
    expect(stub.requests[0]).toMatchObject({method: 'GET', path: '/api/weather/Cairo?units=metric'})
    expect(stub.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`)
  })

  it('runs a declared app action and answers finished with data', async () => {
    const reply = await call('POST', `/svc/apps/${appId}/action/weather`, {body: {city: 'Oslo'}})
    expect(reply.status, reply.text).toBe(200)
    const result = await actionResult('weather', reply)
    expect(result).toMatchObject({status: 'finished', flow_process_id: expect.any(String), data: {city: 'Oslo', alert: false, temperature: 4}})
    const status = await call('GET', `/svc/apps/${appId}/action/weather/status?flow_process_id=${reply.json.flow_process_id}`)
    expect(status.json).toEqual({flow_process_id: reply.json.flow_process_id, status: 'finished', data: result.data})
    const process = await call('GET', `/connect/flow_processes/${reply.json.flow_process_id}.json`)
    expect(process.json).toMatchObject({trigger: 'action', app_id: appId, action: 'weather', input: {city: 'Oslo'}, user_id: ctx().world.users.admin!.id})
    expect(stub.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`)
  })

  it('guards non-public actions; public ones are open', async () => {
    expect((await call('POST', `/svc/apps/${appId}/action/weather`, {as: null, body: {city: 'Oslo'}})).status).toBe(401)
    expect((await call('POST', `/svc/apps/${appId}/action/weather`, {as: 'mallory', body: {city: 'Oslo'}})).status).toBe(404)
    expect((await call('POST', `/svc/apps/${appId}/action/nope`, {body: {}})).status).toBe(404)
    expect((await call('POST', `/svc/apps/00000000-0000-4000-8000-000000000000/action/weather`, {body: {}})).status).toBe(404)
    const open = await call('POST', `/svc/apps/${appId}/action/open_weather`, {as: null, body: {city: 'Cairo'}})
    expect(await actionResult('open_weather', open, null)).toMatchObject({status: 'finished', data: {alert: 'hot in Cairo'}})
    const status = await call('GET', `/svc/apps/${appId}/action/open_weather/status?flow_process_id=${open.json.flow_process_id}`, {as: null})
    expect(status.json.status).toBe('finished')
    // The process id of one action is not readable through another.
    expect((await call('GET', `/svc/apps/${appId}/action/weather/status?flow_process_id=${open.json.flow_process_id}`)).status).toBe(404)
    expect((await call('GET', `/svc/apps/${appId}/action/weather/status`)).status).toBe(400)
    expect((await call('POST', `/svc/apps/${appId}/action/weather`, {rawBody: '{bad'})).status).toBe(400)
  })

  it('a failing connector ends the run as error with its text, never the secret', async () => {
    const reply = await call('POST', `/svc/apps/${appId}/action/broken`, {body: {}})
    expect(reply.status).toBe(200)
    const ended = await actionResult('broken', reply)
    expect(ended.status).toBe('error')
    expect(ended.error).toMatch(/^weather\.fail answered 503: upstream broken for Bearer \[secret\]$/)
    expect(stub.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`)
    const status = await call('GET', `/svc/apps/${appId}/action/broken/status?flow_process_id=${reply.json.flow_process_id}`)
    expect(status.json).toEqual({flow_process_id: reply.json.flow_process_id, status: 'error', error: ended.error})
  })

  it('an action whose flow does not exist ends as error', async () => {
    const reply = await call('POST', `/svc/apps/${appId}/action/ghost`, {body: {}})
    expect(await actionResult('ghost', reply)).toMatchObject({status: 'error', error: 'flow "no_such_flow" not found'})
  })

  it('a slow flow answers pending, and the status endpoint later finished', async () => {
    const reply = await call('POST', `/svc/apps/${appId}/action/slow`, {body: {}})
    expect(reply.json).toEqual({flow_process_id: expect.any(String), status: 'pending'})
    const path = `/svc/apps/${appId}/action/slow/status?flow_process_id=${reply.json.flow_process_id}`
    expect((await call('GET', path)).json).toEqual({flow_process_id: reply.json.flow_process_id, status: 'pending'})
    stub.release()
    const ended = await waitEnded(path)
    expect(ended.json).toEqual({flow_process_id: reply.json.flow_process_id, status: 'finished', data: {answer: {temperature: 40, city: 'Slowtown'}}})
  })

  it('crons: validated CRUD, run now with {kind: "cron", cron_id}, and the scheduler', async () => {
    const bad = await call('POST', '/account/crons.json', {body: {cron: {kind: 'flow', target_code: 'nope', schedule: 'every day'}}})
    expect(bad.status).toBe(422)
    expect(bad.json).toMatchObject({target_code: [expect.any(String)], schedule: [expect.stringMatching(/not a valid cron expression/)]})
    expect((await call('POST', '/account/crons.json', {as: 'alice', body: {cron: {target_code: 'heat_check', schedule: '0 8 * * *'}}})).status).toBe(403)

    const created = await call('POST', '/account/crons.json', {body: {cron: {kind: 'flow', target_code: 'heat_check', schedule: '0 8 * * *', active: true}}})
    expect(created.status, created.text).toBe(201)
    const cron = created.json
    expect(cron).toMatchObject({id: expect.any(Number), kind: 'flow', target_code: 'heat_check', schedule: '0 8 * * *', active: true, next_run_at: expect.any(String)})
    const idle = await call('POST', '/account/crons.json', {body: {cron: {kind: 'flow', target_code: 'heat_check', schedule: '*/1 * * * * *', active: false}}})
    expect(idle.json).toMatchObject({active: false, next_run_at: null})

    const now = await call('POST', `/account/crons/${cron.id}/run.json`)
    expect(now.status, now.text).toBe(201)
    const ran = now.json.status === 'pending' ? (await waitEnded(`/connect/flow_processes/${now.json.id}.json`)).json : now.json
    expect(ran).toMatchObject({status: 'finished', trigger: 'cron', cron_id: cron.id, input: {kind: 'cron', cron_id: cron.id}, output: {alert: 'hot in Cairo'}})

    const scheduler = createFlowScheduler(ctx().world.store, ctx().world.services.flows)
    const started = await scheduler.tick(new Date(Date.now() + 2 * 86_400_000))
    expect(started).toHaveLength(1)
    const scheduled = await waitEnded(`/connect/flow_processes/${started[0]}.json`)
    expect(scheduled.json).toMatchObject({status: 'finished', trigger: 'cron', cron_id: cron.id, input: {kind: 'cron', cron_id: cron.id}})
    // The occurrence is claimed: ticking at the same moment again starts nothing.
    expect(await scheduler.tick(new Date(Date.now() + 2 * 86_400_000))).toEqual([])
    const runsOfIdle = await call('GET', `/connect/flow_processes.json?cron_id=${idle.json.id}`)
    expect(runsOfIdle.json).toEqual([])

    const listed = await call('GET', '/account/crons.json')
    expect(listed.json.find((c: {id: number}) => c.id === cron.id)).toMatchObject({last_flow_process_id: started[0]})
    const paused = await call('PATCH', `/account/crons/${cron.id}.json`, {body: {cron: {active: false}}})
    expect(paused.json).toMatchObject({active: false, next_run_at: null, schedule: '0 8 * * *'})
    expect(await scheduler.tick(new Date(Date.now() + 30 * 86_400_000))).toEqual([])
    expect((await call('PATCH', `/account/crons/${cron.id}.json`, {body: {cron: {schedule: '99 * * * *'}}})).status).toBe(422)
    expect((await call('PATCH', `/account/crons/${cron.id}.json`, {as: 'mallory', body: {cron: {active: true}}})).status).toBe(404)
    expect((await call('DELETE', `/account/crons/${idle.json.id}.json`)).status).toBe(204)
    expect((await call('DELETE', `/account/crons/${idle.json.id}.json`)).status).toBe(404)
  })

  it('lists flow processes of the account only, newest first, with filters', async () => {
    const all = await call('GET', '/connect/flow_processes.json?limit=100')
    expect(all.status).toBe(200)
    const triggers = new Set(all.json.map((p: {trigger: string}) => p.trigger))
    expect([...triggers].sort()).toEqual(['action', 'cron', 'manual'])
    const created = all.json.map((p: {created_at: string}) => p.created_at)
    expect([...created].sort().reverse()).toEqual(created)
    const errors = await call('GET', '/connect/flow_processes.json?status=error')
    expect(errors.json.length).toBeGreaterThan(0)
    expect(errors.json.every((p: {status: string}) => p.status === 'error')).toBe(true)
    expect((await call('GET', '/connect/flow_processes.json?status=weird')).status).toBe(400)
    expect((await call('GET', '/connect/flow_processes.json', {as: 'mallory'})).json).toEqual([])
    expect((await call('GET', `/connect/flow_processes/${all.json[0].id}.json`, {as: 'mallory'})).status).toBe(404)
    expect((await call('GET', '/connect/flow_processes.json', {as: null})).status).toBe(401)
  })

  it('calls public connector methods without login; private ones need a user of the account', async () => {
    const open = await call('GET', '/svc/connector/weather/public_current?city=Cairo', {as: null})
    expect(open.status, open.text).toBe(200)
    expect(open.json).toEqual({city: 'Cairo', temperature: 35, units: 'metric'})
    expect(stub.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`)
    const posted = await call('POST', '/svc/connector/weather/echo?x=1', {as: null, body: {y: 2}})
    expect(posted.json).toEqual({method: 'POST', query: {}, body: {x: '1', y: 2}})
    expect((await call('GET', '/svc/connector/weather/current?city=Oslo', {as: null})).status).toBe(401)
    expect((await call('GET', '/svc/connector/weather/current?city=Oslo', {as: 'mallory'})).status).toBe(404)
    expect((await call('GET', '/svc/connector/weather/current?city=Oslo')).json).toMatchObject({temperature: 4})
    expect((await call('GET', '/svc/connector/weather/public_current', {as: null})).json).toEqual({city: ['is required']})
    const failing = await call('GET', '/svc/connector/weather/fail')
    expect(failing.status).toBe(502)
    expect(failing.json.error).toContain('[secret]')
    expect((await call('GET', '/svc/connector/nope/current', {as: null})).status).toBe(401)
    expect((await call('GET', '/svc/connector/nope/current')).status).toBe(404)
  })

  it('limits public calls per client address', async () => {
    let limited: Reply | undefined
    for (let i = 0; i < 80 && !limited; i++) {
      const reply = await call('GET', '/svc/connector/weather/public_current?city=Oslo', {as: null})
      if (reply.status === 429) limited = reply
      else expect(reply.status).toBe(200)
    }
    expect(limited?.json.error).toMatch(/too many requests/)
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0)
    // A signed-in user of the account is not limited.
    expect((await call('GET', '/svc/connector/weather/public_current?city=Oslo')).status).toBe(200)
  })

  it('never puts the secret in any answer', () => {
    expect(bodies.length).toBeGreaterThan(50)
    for (const body of bodies) expect(body).not.toContain(SECRET)
  })
})
