import {describe, expect, it} from 'vitest'
import {compileCondition, evaluateCondition} from '../../src/core/flows/condition.js'
import {buildConnectorRequest, redact} from '../../src/core/flows/connector.js'
import {cronData, nextRun, type CronContext} from '../../src/core/flows/crons.js'
import {FlowRunError, getPath, interpolate, setPath} from '../../src/core/flows/data.js'
import {FLOW_LIMITS} from '../../src/core/flows/limits.js'
import {checkProgram} from '../../src/core/flows/program.js'
import {RateLimiter} from '../../src/core/flows/rate-limit.js'
import {resourceData} from '../../src/core/flows/resources.js'
import {runProgram, type ConnectorCall, type ConnectorSeen} from '../../src/core/flows/run.js'
import {boundValue, TRACE_LIMITS, TraceRecorder, type StepRecord, type TraceStep} from '../../src/core/flows/trace.js'
import {SvcError} from '../../src/core/errors.js'
import {cronContext, CronInput, ResourceInput} from '../../src/core/contract/flows.js'
import {svcMessage} from '../../src/core/contract/messages.js'
import {validationError} from '../../src/http/router.js'

/** A body as a route takes it: its schema first (one 422 of every problem, as the middleware answers), then core's rules. */
function bySchema<S extends typeof ResourceInput | typeof CronInput>(schema: S, raw: Record<string, unknown>) {
  const parsed = schema.safeParse(raw, {error: svcMessage})
  if (!parsed.success) throw validationError('json', parsed.error.issues)
  return parsed.data
}
const validateResource = (raw: Record<string, unknown>) => resourceData(bySchema(ResourceInput, raw) as never)
const validateCron = (raw: Record<string, unknown>, flowExists: (code: string) => boolean, now: Date, minIntervalSeconds = 0) => {
  const context: CronContext = {flowExists, now, minIntervalSeconds}
  return cronData(cronContext.run(context, () => bySchema(CronInput, raw)) as never)
}

const signal = () => new AbortController().signal

describe('flow data: paths and placeholders', () => {
  it('reads own properties and array indexes only', () => {
    const data = {a: {b: [{c: 1}]}, s: 'x'}
    expect(getPath(data, 'a.b.0.c')).toBe(1)
    expect(getPath(data, 'a.missing')).toBeUndefined()
    expect(getPath(data, 's.length')).toBeUndefined()
    expect(getPath(data, 'a.constructor')).toBeUndefined()
    expect(getPath({}, '__proto__')).toBeUndefined()
  })

  it('writes nested paths, refuses prototype names and holes in arrays', () => {
    const data: Record<string, unknown> = {list: [1]}
    setPath(data, 'x.y.z', 3)
    setPath(data, 'list.1', 2)
    expect(data).toEqual({list: [1, 2], x: {y: {z: 3}}})
    expect(() => setPath(data, '__proto__.polluted', 1)).toThrow(FlowRunError)
    expect(() => setPath(data, 'list.1000000', 1)).toThrow(/not an index/)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('keeps the type of a whole placeholder and joins text otherwise', () => {
    const data = {t: 31.5, o: {k: 1}, s: 'Oslo'}
    expect(interpolate('{t}', data, 1000)).toBe(31.5)
    expect(interpolate('{o}', data, 1000)).toEqual({k: 1})
    expect(interpolate('{nope}', data, 1000)).toBeNull()
    expect(interpolate('In {s}: {t} C {nope}', data, 1000)).toBe('In Oslo: 31.5 C ')
    expect(interpolate({deep: ['{s}', 2, true]}, data, 1000)).toEqual({deep: ['Oslo', 2, true]})
    expect(interpolate('{not a placeholder} {}', data, 1000)).toBe('{not a placeholder} {}')
  })

  it('bounds interpolated strings', () => {
    const data = {big: 'x'.repeat(600)}
    expect(() => interpolate('{big}{big}', data, 1000)).toThrow(/longer than 1000/)
  })
})

describe('conditions (filtrex, no eval)', () => {
  const check = (condition: string, data: unknown) => evaluateCondition(condition, compileCondition(condition), data)

  it('compares placeholders, bare names and dotted names', () => {
    expect(check('{json_object.temperature} > 30', {json_object: {temperature: 31}})).toBe(true)
    expect(check('{json_object.temperature} > 30', {json_object: {temperature: 30}})).toBe(false)
    expect(check('city == "Oslo" and t >= 2', {city: 'Oslo', t: 2})).toBe(true)
    expect(check('w.t < 0 or contains(w.name, "{x}")', {w: {t: 5, name: 'a{x}b'}})).toBe(true)
  })

  it('refuses bad syntax, regular expressions and code', () => {
    expect(() => compileCondition('t >')).toThrow()
    expect(() => compileCondition('s ~= "a+"')).toThrow(/regular expressions/)
    expect(() => compileCondition('{a b} > 1')).toThrow(/placeholder/)
    expect(() => check('process.exit(1)', {process: {}})).toThrow(/Unknown function/i)
    expect(check('constructor', {})).toBe(false)
  })

  it('turns a runtime type error into a run error', () => {
    expect(() => check('{missing} > 30', {})).toThrow(FlowRunError)
  })
})

describe('program validation', () => {
  it('accepts the three step types', () => {
    const {errors} = checkProgram([
      {type: 'mutation', set: {city: 'Oslo'}},
      {type: 'connector', connector: 'weather', method: 'current', params: {city: '{city}'}, into: 'json_object'},
      {type: 'if', condition: '{json_object.temperature} > 30', then: [{type: 'mutation', set: {alert: true}}], else: []},
    ])
    expect(errors).toEqual([])
  })

  it('names every problem with its step', () => {
    const {errors} = checkProgram([
      {type: 'loop'},
      {type: 'connector', method: 'x y'},
      {type: 'if', condition: '1 +', then: [{type: 'mutation', set: {'a..b': 1}, extra: 1}]},
    ])
    expect(errors).toEqual(expect.arrayContaining([
      'step 1: type must be one of connector, mutation, if',
      'step 2: connector must be a connector code',
      'step 2: method must be a method name',
      expect.stringMatching(/^step 3: condition is invalid/),
      'step 3.then.1: unknown key "extra"',
      'step 3.then.1: "a..b" is not a valid path',
    ]))
    expect(checkProgram('nope').errors).toEqual(['must be an array of steps'])
  })

  it('bounds the size and the nesting', () => {
    const many = Array.from({length: FLOW_LIMITS.maxProgramSteps + 1}, () => ({type: 'mutation', set: {a: 1}}))
    expect(checkProgram(many).errors[0]).toMatch(/at most/)
    let deep: unknown[] = [{type: 'mutation', set: {a: 1}}]
    for (let i = 0; i < FLOW_LIMITS.maxNesting + 1; i++) deep = [{type: 'if', condition: 'true', then: deep}]
    expect(checkProgram(deep).errors.join()).toMatch(/nested deeper/)
  })
})

describe('runProgram', () => {
  const limits = FLOW_LIMITS
  const weather = [
    {type: 'mutation', set: {city: 'Oslo'}},
    {type: 'connector', connector: 'weather', method: 'current', params: {city: '{city}'}, into: 'json_object'},
    {type: 'if', condition: '{json_object.temperature} > 30',
      then: [{type: 'mutation', set: {alert: 'hot in {city}', temperature: '{json_object.temperature}'}}],
      else: [{type: 'mutation', set: {alert: false}}]},
  ]

  it('runs connector → mutation → if, with the I/O injected', async () => {
    const calls: ConnectorCall[] = []
    const hooks = {callConnector: async (call: ConnectorCall) => (calls.push(call), {temperature: 33})}
    const result = await runProgram(weather, {kind: 'cron', cron_id: 1}, hooks, limits, signal())
    expect(calls).toEqual([{connector: 'weather', method: 'current', params: {city: 'Oslo'}}])
    expect(result).toEqual({
      steps: 4,
      data: {kind: 'cron', cron_id: 1, city: 'Oslo', json_object: {temperature: 33}, alert: 'hot in Oslo', temperature: 33},
      trace: {omitted_steps: 0, steps: [
        expect.objectContaining({path: '1', type: 'mutation', input: {city: 'Oslo'}}),
        expect.objectContaining({path: '2', type: 'connector', output: {status: null, value: {temperature: 33}}}),
        expect.objectContaining({path: '3', type: 'if', input: {condition: '{json_object.temperature} > 30', result: true}, output: {branch: 'then'}}),
        expect.objectContaining({path: '3.then.1', type: 'mutation', input: {alert: 'hot in Oslo', temperature: 33}}),
      ]},
    })
    const cold = await runProgram(weather, {}, {callConnector: async () => ({temperature: 3})}, limits, signal())
    expect(cold.data.alert).toBe(false)
  })

  it('fails with the connector error text and keeps the data so far', async () => {
    const hooks = {callConnector: async () => { throw new FlowRunError('weather.current answered 503: down') }}
    const error = await runProgram(weather, {}, hooks, limits, signal()).catch((e) => e)
    expect(error).toBeInstanceOf(FlowRunError)
    expect(error.message).toBe('weather.current answered 503: down')
    expect(error.steps).toBe(2)
    expect(error.data).toEqual({city: 'Oslo'})
    expect(error.trace.steps.map((s: TraceStep) => [s.path, s.error])).toEqual([['1', undefined], ['2', 'weather.current answered 503: down']])
  })

  it('traces what the host saw of a connector call (its request and the status), even when the call fails', async () => {
    const hooks = {callConnector: async (_call: ConnectorCall, _signal: AbortSignal, seen: ConnectorSeen) => {
      seen.request = {http_method: 'GET', path_params: {city: 'Oslo'}, query: {}}
      seen.status = 500
      throw new FlowRunError('weather.current answered 500')
    }}
    const error = await runProgram(weather, {}, hooks, limits, signal()).catch((e) => e)
    expect(error.trace.steps[1]).toEqual({
      path: '2', type: 'connector', label: 'weather.current → json_object', duration_ms: expect.any(Number),
      input: {connector: 'weather', method: 'current', http_method: 'GET', path_params: {city: 'Oslo'}, query: {}},
      output: {status: 500}, error: 'weather.current answered 500',
    })
  })

  it('stops when the data grows too large', async () => {
    const program = [{type: 'mutation', set: {a: 'xxxxxxxxxx'}}, ...Array.from({length: 12}, () => ({type: 'mutation', set: {a: '{a}{a}'}}))]
    await expect(runProgram(program, {}, {callConnector: async () => null}, {...limits, maxDataBytes: 10_000}, signal()))
      .rejects.toThrow(/grew beyond/)
  })

  it('refuses an invalid stored program', async () => {
    await expect(runProgram([{type: 'x'}], {}, {callConnector: async () => null}, limits, signal())).rejects.toThrow(/invalid program/)
  })
})

describe('trace bounds', () => {
  const limits = {...TRACE_LIMITS, maxValueBytes: 100, maxTraceBytes: 2000, errorReserveBytes: 600, maxErrorLength: 200}
  const step = (i: number, extra: Partial<StepRecord> = {}): StepRecord =>
    ({path: String(i), type: 'mutation', label: `set v${i}`, input: {[`v${i}`]: 'x'.repeat(60)}, durationMs: 1.4, ...extra})

  it('cuts a value beyond its bound to a JSON text preview on a character boundary', () => {
    expect(boundValue({a: 1}, 100)).toEqual({value: {a: 1}, truncated: false})
    const cut = boundValue({text: 'é'.repeat(100)}, 100)
    expect(cut.truncated).toBe(true)
    expect(cut.value).toMatch(/^\{"text":"é+…$/)
    expect(Buffer.byteLength(JSON.stringify(cut.value))).toBeLessThanOrEqual(100)
    // Quotes and control characters are escaped again in the preview's own JSON: still within the bound.
    for (const nasty of ['"'.repeat(500), '\u0001'.repeat(500), '\\'.repeat(500)]) {
      const bounded = boundValue({nasty}, 100)
      expect(bounded.truncated).toBe(true)
      expect(Buffer.byteLength(JSON.stringify(bounded.value))).toBeLessThanOrEqual(100)
      expect((bounded.value as string).length).toBeGreaterThan(10)
    }
  })

  it('keeps the trace within its bound: values dropped, then steps omitted, the failing step kept', () => {
    const recorder = new TraceRecorder(limits)
    for (let i = 1; i <= 40; i++) recorder.record(step(i))
    recorder.record(step(41, {input: {long: 'y'.repeat(500)}, error: 'e'.repeat(5000)}))
    const trace = recorder.result()
    expect(Buffer.byteLength(JSON.stringify(trace))).toBeLessThanOrEqual(limits.maxTraceBytes)
    expect(trace.steps[0]).toEqual({path: '1', type: 'mutation', label: 'set v1', input: {v1: 'x'.repeat(60)}, duration_ms: 1})
    expect(trace.steps.some((s) => s.truncated && s.input === undefined)).toBe(true)
    expect(trace.omitted_steps).toBeGreaterThan(0)
    expect(trace.steps.length + trace.omitted_steps).toBe(41)
    const last = trace.steps.at(-1)!
    expect(last).toMatchObject({path: '41', truncated: true})
    expect(last.error).toHaveLength(200)
  })
})

describe('connector requests', () => {
  const method = {name: 'current', http_method: 'GET' as const, path: '/weather/{city}', public: false}

  it('fills the path, encodes, and sends the rest as query or JSON body', () => {
    expect(buildConnectorRequest('http://h/api/', method, {city: 'New York', units: 'metric'}, 'w.current'))
      .toEqual({url: 'http://h/api/weather/New%20York?units=metric', method: 'GET',
        view: {http_method: 'GET', path_params: {city: 'New York'}, query: {units: 'metric'}}})
    expect(buildConnectorRequest('http://h', {...method, http_method: 'POST'}, {city: 'a/b', n: 1}, 'w.current'))
      .toEqual({url: 'http://h/weather/a%2Fb', method: 'POST', body: '{"n":1}', view: {http_method: 'POST', path_params: {city: 'a/b'}, body: {n: 1}}})
    expect(() => buildConnectorRequest('http://h', method, {}, 'w.current')).toThrow(/parameter "city" is required/)
  })

  it('redacts a secret', () => {
    expect(redact('token abc123 was abc123', 'abc123')).toBe('token [secret] was [secret]')
  })
})

describe('resource validation', () => {
  const fields = (fn: () => unknown) => {
    try {
      fn()
    } catch (e) {
      return (e as SvcError).details
    }
    return undefined
  }

  it('normalises a connector and never needs the secret back', () => {
    const w = validateResource({kind: 'svc/custom_connector', code: 'weather', url: 'http://127.0.0.1:9/api', secret_token: 's3cr3t-token',
      fields: {methods: [{name: 'current', http_method: 'get', path: '/weather/{city}', public: true}]}})
    expect(w).toMatchObject({name: 'weather', secret_token: 's3cr3t-token', fields: {methods: [{name: 'current', http_method: 'GET', public: true}]}})
  })

  it('collects field errors', () => {
    expect(fields(() => validateResource({kind: 'svc/other', code: '', url: 'ftp://x'}))).toMatchObject({
      kind: [expect.any(String)], code: ["can't be blank"],
    })
    expect(fields(() => validateResource({kind: 'svc/custom_connector', code: 'c', url: 'http://u:p@h', secret_token: 'a b',
      fields: {methods: [{name: 'x', http_method: 'TRACE', path: 'nope'}, {name: 'x'}]}}))).toMatchObject({
      url: ['must not carry credentials (use secret_token)'],
      secret_token: [expect.any(String)],
      'fields.methods': expect.arrayContaining([expect.stringMatching(/http_method/), expect.stringMatching(/path/), expect.stringMatching(/used twice/)]),
    })
    expect(fields(() => validateResource({kind: 'svc/custom_flow', code: 'f', url: 'http://h', fields: {program: [{type: 'nope'}]}}))).toMatchObject({
      url: ['is only used by connectors'], 'fields.program': ['step 1: type must be one of connector, mutation, if'],
    })
  })
})

describe('crons', () => {
  const now = new Date('2026-01-01T00:00:00Z')
  it('validates with croner and the account flows', () => {
    expect(validateCron({kind: 'flow', target_code: 'w', schedule: '*/1 * * * * *', active: true}, () => true, now))
      .toEqual({kind: 'flow', target_code: 'w', schedule: '*/1 * * * * *', timezone: null, active: true})
    let details: unknown
    try {
      validateCron({kind: 'job', target_code: 'nope', schedule: '61 * * * *', active: 'yes', timezone: 'Mars/Base'}, () => false, now)
    } catch (e) {
      details = (e as SvcError).details
    }
    expect(details).toMatchObject({
      kind: ['must be flow'], target_code: [expect.stringMatching(/no flow/)], active: [expect.any(String)], timezone: [expect.any(String)],
    })
    expect(() => validateCron({target_code: 'w', schedule: '0 0 31 2 *'}, () => true, now)).toThrow()
  })

  it('computes the next run after a moment', () => {
    expect(nextRun('0 8 * * *', 'UTC', now)?.toISOString()).toBe('2026-01-01T08:00:00.000Z')
    expect(nextRun('*/1 * * * * *', null, now)?.toISOString()).toBe('2026-01-01T00:00:01.000Z')
  })
})

describe('rate limiter', () => {
  it('allows a burst, then asks to wait, then refills', () => {
    const limiter = new RateLimiter(3, 60)
    expect([0, 1, 2].map(() => limiter.take('a', 1000))).toEqual([0, 0, 0])
    expect(limiter.take('a', 1000)).toBe(1)
    expect(limiter.take('b', 1000)).toBe(0)
    expect(limiter.take('a', 2100)).toBe(0)
  })
})
