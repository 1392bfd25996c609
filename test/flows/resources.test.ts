import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {makeCall, runScenarios, type Ctx} from '../helpers/scenarios.js'
import {createWorld, DEFAULT_SEED, openTransport, TRANSPORTS} from '../helpers/world.js'
import {flowCalling, SECRET, startStub, weatherConnector, type Stub} from './stub.js'

const SEED = {...DEFAULT_SEED, users: [...DEFAULT_SEED.users!, {login: 'gus', role: 'guest' as const}]}
const connector = weatherConnector('http://127.0.0.1:9/api')
let connectorId = 0
let flowId = 0

runScenarios('resources API: validation, write-only secret, accounts', SEED, [
  {
    name: 'needs a signed-in user', method: 'GET', url: '/svc/resources.json', as: null,
    expectedStatus: 401, expectedHeaders: {'www-authenticate': 'Bearer'},
  },
  {
    name: 'creates a connector; the answer never holds the secret', method: 'POST', url: '/svc/resources.json',
    body: {resource: connector}, expectedStatus: 201,
    expectedContent: {id: expect.any(Number), kind: 'svc/custom_connector', code: 'weather', name: 'Weather API', has_secret_token: true, created_by_id: expect.any(Number)},
    notExpectedText: [SECRET, '"secret_token"'],
  },
  {
    name: 'a connector code is taken on the whole server', method: 'POST', url: '/svc/resources.json', as: 'mallory',
    body: {resource: {...connector, secret_token: undefined}}, expectedStatus: 422, expectedContent: {code: ['has already been taken']},
  },
  {
    name: 'lists and filters', method: 'GET', url: '/svc/resources.json?kind=svc/custom_connector&q=weath', expectedStatus: 200,
    expectedContent: [{code: 'weather', has_secret_token: true}], notExpectedText: [SECRET],
    before: async (ctx) => {
      const list = await ctx.call('GET', '/svc/resources.json')
      connectorId = list.json[0].id
    },
  },
  {name: 'a bad kind filter is a 400', method: 'GET', url: '/svc/resources.json?kind=x', expectedStatus: 400},
  {
    name: 'validates every field of a resource (422 field map)', method: 'POST', url: '/svc/resources.json',
    body: {resource: {kind: 'svc/custom_connector', code: 'bad code!', url: 'javascript:alert(1)', secret_token: 42, color: 'red',
      fields: {methods: [{name: 'm', http_method: 'BREW', path: '/x/{id', public: 'yes'}]}}},
    expectedStatus: 422,
    expectedContent: {
      code: [expect.any(String)], url: ['must be an absolute http or https address'], secret_token: ['must be a string'],
      color: ['is not a known field'], 'fields.methods': expect.arrayContaining([expect.stringMatching(/http_method/), expect.stringMatching(/placeholders/), expect.stringMatching(/public/)]),
    },
  },
  {
    name: 'validates a flow program', method: 'POST', url: '/svc/resources.json',
    body: {resource: {kind: 'svc/custom_flow', code: 'f', fields: {program: [{type: 'if', condition: 'a ~= "x"', then: 'no'}]}}},
    expectedStatus: 422,
    expectedContent: {'fields.program': [expect.stringMatching(/regular expressions/), 'step 1: then must be an array of steps']},
  },
  {name: 'a body that is not JSON is a 400', method: 'POST', url: '/svc/resources.json', rawBody: '{nope', expectedStatus: 400},
  {
    name: 'a resource that is not an object is a 400', method: 'POST', url: '/svc/resources.json', body: {resource: [1]},
    expectedStatus: 400, expectedContent: {error: '"resource" must be an object'},
  },
  {
    name: 'members named like Object.prototype ones are fields like any other', method: 'POST', url: '/svc/resources.json',
    body: {resource: {kind: 'svc/custom_flow', code: 'p', constructor: 1, toString: 'x'}}, expectedStatus: 422,
    expectedContent: {constructor: ['is not a known field'], toString: ['is not a known field']},
  },
  {
    name: 'a cron: bad types and a flow the account lacks in one 422', method: 'POST', url: '/account/crons.json',
    body: {cron: {kind: 'job', target_code: 'nope', schedule: '0 8 * * *', active: 'yes', timezone: 'Mars/Base'}}, expectedStatus: 422,
    expectedContent: {kind: ['must be flow'], target_code: ['names no flow (svc/custom_flow) of this account'], active: ['must be true or false'],
      timezone: ['is not a known IANA time zone']},
  },
  {
    name: 'the list of runs checks its query', method: 'GET', url: '/connect/flow_processes.json?limit=0', expectedStatus: 400,
    expectedContent: {error: 'limit must be an integer from 1 to 100'},
  },
  {name: 'a guest cannot write', method: 'POST', url: '/svc/resources.json', as: 'gus', body: {resource: flowCalling('g', 'current')}, expectedStatus: 403},
  {
    name: 'creates a flow', method: 'POST', url: '/svc/resources.json', body: {resource: {...flowCalling('check', 'current'), name: 'Check'}},
    expectedStatus: 201, expectedContent: {kind: 'svc/custom_flow', code: 'check', url: null, has_secret_token: false},
    before: async () => {},
  },
  {
    name: 'PATCH changes the name and keeps the secret', method: 'PATCH', url: () => `/svc/resources/${connectorId}.json`,
    body: {resource: {name: 'Weather v2', fields: {note: 'kept'}}}, expectedStatus: 200,
    expectedContent: {name: 'Weather v2', has_secret_token: true, fields: {note: 'kept', methods: expect.any(Array)}}, notExpectedText: [SECRET],
  },
  {
    name: 'PATCH cannot change the kind', method: 'PATCH', url: () => `/svc/resources/${connectorId}.json`,
    body: {resource: {kind: 'svc/custom_flow'}}, expectedStatus: 422, expectedContent: {kind: ['cannot be changed']},
  },
  {
    name: 'PATCH with secret_token null clears it', method: 'PATCH', url: () => `/svc/resources/${connectorId}.json`,
    body: {resource: {secret_token: null}}, expectedStatus: 200, expectedContent: {has_secret_token: false},
  },
  {name: 'another account sees a 404', method: 'GET', url: () => `/svc/resources/${connectorId}.json`, as: 'mallory', expectedStatus: 404},
  {name: 'another account cannot delete', method: 'DELETE', url: () => `/svc/resources/${connectorId}.json`, as: 'mallory', expectedStatus: 404},
  {name: 'an id that is not a number is a 404', method: 'GET', url: '/svc/resources/abc.json', expectedStatus: 404},
  {
    name: 'running a connector is refused', method: 'POST', url: () => `/svc/resources/${connectorId}/run.json`, expectedStatus: 400,
  },
  {
    name: 'running a flow by hand answers the flow process', method: 'POST', url: () => `/svc/resources/${flowId}/run.json`,
    body: {input: {a: 1}}, expectedStatus: 201,
    expectedContent: {id: expect.any(String), trigger: 'manual', input: {a: 1}, status: 'error', error: expect.stringMatching(/weather\.current/)},
    before: async (ctx) => {
      flowId = (await ctx.call('GET', '/svc/resources.json?kind=svc/custom_flow&code=check')).json[0].id
    },
  },
  {
    name: 'PATCH validates the program too', method: 'PATCH', url: () => `/svc/resources/${flowId}.json`,
    body: {resource: {fields: {program: [{type: 'mutation', set: {'__proto__.x': 1}}]}}}, expectedStatus: 422,
    expectedContent: {'fields.program': ['step 1: "__proto__.x" is not a valid path']},
  },
  {
    name: 'a run input beyond the bound is a 413', method: 'POST', url: () => `/svc/resources/${flowId}/run.json`,
    body: {input: {blob: 'x'.repeat(300 * 1024)}}, expectedStatus: 413,
  },
  {
    name: 'a cron must name a flow of the account', method: 'POST', url: '/account/crons.json', as: 'mallory',
    body: {cron: {kind: 'flow', target_code: 'check', schedule: '@hourly'}}, expectedStatus: 422,
    expectedContent: {target_code: ['names no flow (svc/custom_flow) of this account']},
  },
  {name: 'DELETE answers 204', method: 'DELETE', url: () => `/svc/resources/${connectorId}.json`, expectedStatus: 204},
  {name: 'then it is gone', method: 'GET', url: () => `/svc/resources/${connectorId}.json`, expectedStatus: 404},
])

/** The runner's bounds, with a short connector timeout, through both transports. */
for (const transportName of TRANSPORTS) {
  describe(`flow runner bounds [${transportName}]`, () => {
    let stub: Stub
    let ctx: Ctx
    let close: () => Promise<void>
    const ids: Record<string, number> = {}

    beforeAll(async () => {
      stub = await startStub()
      const world = await createWorld(SEED, {flowLimits: {connectorTimeoutMs: 300, maxResponseBytes: 64 * 1024, actionWaitMs: 10_000}})
      const transport = await openTransport(transportName, world.app)
      ctx = {world, transport, call: makeCall(world, transport)}
      close = async () => {
        await transport.close()
        await world.close()
      }
      expect((await ctx.call('POST', '/svc/resources.json', {body: {resource: weatherConnector(stub.url)}})).status).toBe(201)
      for (const method of ['hang', 'big', 'redirect']) {
        const r = await ctx.call('POST', '/svc/resources.json', {body: {resource: flowCalling(`call_${method}`, method)}})
        ids[method] = r.json.id
      }
    })
    afterAll(async () => {
      await close?.()
      await stub?.close()
    })

    const run = async (method: string) => (await ctx.call('POST', `/svc/resources/${ids[method]}/run.json`, {body: {}})).json

    it('a connector that does not answer in time fails the run', async () => {
      expect(await run('hang')).toMatchObject({status: 'error', error: 'weather.hang did not answer within 300 ms'})
    })

    it('a hanging connector does not block the server and its run ends as a persisted error', async () => {
      const seen = stub.requests.length
      const running = run('hang')
      await stub.waitForRequest('/api/hang', seen)
      // While the stub holds the connector call open, the server answers other requests.
      const other = await ctx.call('GET', '/svc/resources.json')
      expect(other.status).toBe(200)
      const ended = await running
      expect(ended).toMatchObject({status: 'error', error: 'weather.hang did not answer within 300 ms', finished_at: expect.any(String)})
      const stored = await ctx.call('GET', `/connect/flow_processes/${ended.id}.json`)
      expect(stored.json).toMatchObject({status: 'error', error: 'weather.hang did not answer within 300 ms'})
      const listed = await ctx.call('GET', '/connect/flow_processes.json?status=error&flow_code=call_hang')
      expect(listed.json.map((p: {id: string}) => p.id)).toContain(ended.id)
    })

    it('a response larger than the bound fails the run', async () => {
      expect(await run('big')).toMatchObject({status: 'error', error: `weather.big: the answer is larger than ${64 * 1024} bytes`})
    })

    it('redirects are not followed (the bearer header must not travel)', async () => {
      expect(await run('redirect')).toMatchObject({status: 'error', error: expect.stringMatching(/redirect \(302\)/)})
      expect(stub.requests.filter((r) => r.path === '/elsewhere')).toEqual([])
    })
  })
}
