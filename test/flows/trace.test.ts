import {beforeAll, afterAll, expect, it} from 'vitest'
import {describeBothTransports, type Ctx, type Reply} from '../helpers/scenarios.js'
import {heatCheck, SECRET, startStub, weatherConnector, type Stub} from './stub.js'

/**
 * A run's trace (issue 28): each executed step, nested ones included, with its resolved input, its
 * output, its error and its duration; bounded in size; never a credential.
 */
describeBothTransports('flow run trace', undefined, (ctx) => {
  let stub: Stub

  const call = (...args: Parameters<Ctx['call']>) => ctx().call(...args)

  const createFlow = async (code: string, program: unknown[]): Promise<number> => {
    const r = await call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code, fields: {program}}}})
    expect(r.status, r.text).toBe(201)
    return r.json.id
  }

  /** Runs a flow by hand and reads the ended run back through getFlowProcess. */
  const runToEnd = async (flowId: number, input: object = {}): Promise<Reply> => {
    const run = await call('POST', `/svc/resources/${flowId}/run.json`, {body: {input}})
    expect(run.status, run.text).toBe(201)
    for (let i = 0; i < 400; i++) {
      const reply = await call('GET', `/connect/flow_processes/${run.json.id}.json`)
      expect(reply.status, reply.text).toBe(200)
      if (reply.json.status !== 'pending') return reply
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`run ${run.json.id} stayed pending`)
  }

  beforeAll(async () => {
    stub = await startStub()
    stub.temperatures.Cairo = 35
    const connector = weatherConnector(stub.url)
    connector.fields.methods.push({name: 'whoami', http_method: 'GET', path: '/whoami'})
    const r = await call('POST', '/svc/resources.json', {body: {resource: connector}})
    expect(r.status, r.text).toBe(201)
  })

  afterAll(async () => {
    await stub?.close()
  })

  it('lists each executed step in order: mutation, connector (request and answer), if and the step of its branch', async () => {
    const id = await createFlow('heat_check', heatCheck.fields.program)
    const run = await runToEnd(id, {note: 'traced'})
    expect(run.json.status).toBe('finished')
    const {steps, omitted_steps} = run.json.trace
    expect(omitted_steps).toBe(0)
    expect(steps.map((s: {path: string}) => s.path)).toEqual(['1', '2', '3', '3.then.1'])
    expect(steps[0]).toEqual({path: '1', type: 'mutation', label: 'set city, threshold', input: {city: 'Cairo', threshold: 30}, duration_ms: expect.any(Number)})
    expect(steps[1]).toEqual({
      path: '2', type: 'connector', label: 'weather.current → json_object',
      input: {connector: 'weather', method: 'current', http_method: 'GET', path_params: {city: 'Cairo'}, query: {units: 'metric'}},
      output: {status: 200, value: {city: 'Cairo', temperature: 35, units: 'metric'}},
      duration_ms: expect.any(Number),
    })
    expect(steps[2]).toEqual({
      path: '3', type: 'if', label: 'if {json_object.temperature} > {threshold}',
      input: {condition: '{json_object.temperature} > {threshold}', result: true}, output: {branch: 'then'}, duration_ms: expect.any(Number),
    })
    expect(steps[3]).toMatchObject({path: '3.then.1', type: 'mutation', input: {alert: 'hot in Cairo', temperature: 35}})
    for (const step of steps) expect(step.duration_ms).toBeGreaterThanOrEqual(0)
    expect(run.json.steps).toBe(4)
  })

  it('marks the failing step with its error and the upstream status; the steps after it never ran', async () => {
    const id = await createFlow('fails_midway', [
      {type: 'mutation', set: {a: 1}},
      {type: 'connector', connector: 'weather', method: 'fail', params: {why: 'test {a}'}},
      {type: 'mutation', set: {b: 2}},
    ])
    const run = await runToEnd(id)
    expect(run.json).toMatchObject({status: 'error', error: 'weather.fail answered 503: upstream broken for Bearer [secret]'})
    const {steps} = run.json.trace
    expect(steps).toHaveLength(2)
    expect(steps[0]).not.toHaveProperty('error')
    expect(steps[1]).toEqual({
      path: '2', type: 'connector', label: 'weather.fail',
      input: {connector: 'weather', method: 'fail', http_method: 'GET', path_params: {}, query: {why: 'test 1'}},
      output: {status: 503}, error: run.json.error, duration_ms: expect.any(Number),
    })
  })

  it('a connector that does not exist is the failing step, traced with the params it was given', async () => {
    const id = await createFlow('no_connector', [{type: 'connector', connector: 'nowhere', method: 'x', params: {q: 'v'}}])
    const run = await runToEnd(id)
    expect(run.json.status).toBe('error')
    expect(run.json.trace.steps).toEqual([{
      path: '1', type: 'connector', label: 'nowhere.x', input: {connector: 'nowhere', method: 'x', params: {q: 'v'}},
      error: 'connector "nowhere" not found', duration_ms: expect.any(Number),
    }])
  })

  it('never holds the connector secret: not as a header, not echoed by the upstream in an answer or an error', async () => {
    const id = await createFlow('leaky', [
      {type: 'connector', connector: 'weather', method: 'whoami', into: 'me'},
      {type: 'connector', connector: 'weather', method: 'echo', params: {token: '{me.headers.authorization}'}, into: 'echoed'},
      {type: 'connector', connector: 'weather', method: 'fail'},
    ])
    const run = await runToEnd(id)
    expect(run.json.status).toBe('error')
    expect(run.json.trace.steps).toHaveLength(3)
    // The upstream did get the secret (so there was one to leak).
    expect(stub.requests.find((r) => r.path === '/api/whoami')!.headers.authorization).toBe(`Bearer ${SECRET}`)
    expect(run.json.trace.steps[0].output.value.headers.authorization).toBe('Bearer [secret]')
    expect(run.text).not.toContain(SECRET)
    const list = await call('GET', '/connect/flow_processes.json?flow_code=leaky')
    expect(list.text).not.toContain(SECRET)
  })

  it('cuts a large input or output to a 4 KB preview marked truncated, and keeps the whole trace within 64 KB', async () => {
    const big = 'é'.repeat(5000)
    const echo = await runToEnd(await createFlow('big_echo', [{type: 'connector', connector: 'weather', method: 'echo', params: {blob: '{blob}'}, into: 'e'}]), {blob: big})
    expect(echo.json.status).toBe('finished')
    expect(echo.json.output.e.body.blob).toBe(big)
    const [step] = echo.json.trace.steps
    expect(step.truncated).toBe(true)
    for (const value of [step.input, step.output]) {
      expect(typeof value).toBe('string')
      expect(Buffer.byteLength(JSON.stringify(value))).toBeLessThanOrEqual(4096)
      expect(value).toMatch(/…$/)
    }
    expect(step.input.startsWith('{"connector":"weather","method":"echo","http_method":"POST"')).toBe(true)

    // 60 mutations of 3 KB each: 180 KB of values for a trace of at most 64 KB.
    const program = Array.from({length: 60}, (_, i) => ({type: 'mutation', set: {[`v${i}`]: '{blob}'}}))
    const many = await runToEnd(await createFlow('many_steps', program), {blob: 'x'.repeat(3000)})
    expect(many.json.status).toBe('finished')
    const trace = many.json.trace
    expect(Buffer.byteLength(JSON.stringify(trace))).toBeLessThanOrEqual(64 * 1024)
    expect(trace.steps.length + trace.omitted_steps).toBe(60)
    // The first steps executed, in order; the first with its values, later ones without (marked).
    expect(trace.steps.map((s: {path: string}) => s.path)).toEqual(Array.from({length: trace.steps.length}, (_, i) => String(i + 1)))
    expect(trace.steps[0]).toMatchObject({path: '1', input: {v0: 'x'.repeat(3000)}})
    expect(trace.steps[0]).not.toHaveProperty('truncated')
    const bare = trace.steps.find((s: {truncated?: boolean}) => s.truncated)
    expect(bare).toMatchObject({type: 'mutation', label: expect.stringMatching(/^set v\d+$/), duration_ms: expect.any(Number)})
    expect(bare).not.toHaveProperty('input')
  })

  it('lists carry no trace; another account cannot read one', async () => {
    const list = await call('GET', '/connect/flow_processes.json?flow_code=heat_check')
    expect(list.status).toBe(200)
    expect(list.json.length).toBeGreaterThan(0)
    for (const run of list.json) expect(run).not.toHaveProperty('trace')
    const one = await call('GET', `/connect/flow_processes/${list.json[0].id}.json`, {as: 'mallory'})
    expect(one.status).toBe(404)
    expect(one.text).not.toContain('Cairo')
  })
})
