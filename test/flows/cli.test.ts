import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type CliResult, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {cityWeather, heatCheck, SECRET, startStub, type Stub} from './stub.js'

// Every step spawns the real binary; on a loaded machine that takes seconds, hence the generous timeout.
describe('svc connector | flow | cron | app action (embedded and remote)', {timeout: 240_000}, () => {
  const data = tempDir()
  const outputs: string[] = []
  let stub: Stub
  let server: ServeProcess
  let token = ''
  let appId = ''

  const run = async (args: string[], env?: Record<string, string>): Promise<CliResult> => {
    const r = await svc(args, {env})
    outputs.push(r.stdout, r.stderr)
    return r
  }
  const local = (...args: string[]) => run([...args, '--data', data, '--json'])
  const remote = (...args: string[]) => run([...args, '--url', server.url, '--token', token, '--json'])

  beforeAll(async () => {
    stub = await startStub()
    stub.temperatures.Cairo = 35
    stub.temperatures.Oslo = 4
    const admin = await run(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
    expect(admin.code, admin.stderr).toBe(0)
    token = admin.json.token
    // The cron test runs a schedule of every second: svc serve allows that only with --cron-seconds.
    server = await svcServe(data, ['--cron-seconds'])
  })

  afterAll(async () => {
    await server?.stop()
    await stub?.close()
  })

  it('connector create | list | call', async () => {
    const created = await run(['connector', 'create', 'weather', '--base-url', stub.url, '--name', 'Weather',
      '--method', 'current GET /weather/{city}', '--method', 'slow GET /slow', '--method', 'open GET /weather/{city} public',
      '--data', data, '--json'], {SVC_CONNECTOR_SECRET_TOKEN: SECRET})
    expect(created.code, created.stderr).toBe(0)
    expect(created.json).toMatchObject({code: 'weather', has_secret_token: true, fields: {methods: [{name: 'current'}, {name: 'slow'}, {name: 'open', public: true}]}})
    const bad = await local('connector', 'create', 'nope', '--base-url', 'ftp://x', '--method', 'a GET')
    expect(bad.code).toBe(2)
    const invalid = await local('connector', 'create', 'nope', '--base-url', 'ftp://x')
    expect(invalid.code).toBe(5)
    expect(invalid.json.error.details).toMatchObject({url: [expect.any(String)]})

    const list = await remote('connector', 'list')
    expect(list.code, list.stderr).toBe(0)
    expect(list.json).toEqual([expect.objectContaining({code: 'weather', has_secret_token: true})])
    const table = await run(['connector', 'list', '--data', data])
    expect(table.stdout).toContain('open (public)')

    const called = await remote('connector', 'call', 'weather', 'current', '--param', 'city=Cairo')
    expect(called.code, called.stderr).toBe(0)
    expect(called.json).toEqual({city: 'Cairo', temperature: 35, units: 'metric'})
    expect(stub.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`)
    const missing = await local('connector', 'call', 'weather', 'nope')
    expect(missing.code).toBe(4)
  })

  it('flow create | list | run | runs | show', async () => {
    const created = await local('flow', 'create', 'heat_check', '--name', 'Heat check', '--program-json', JSON.stringify(heatCheck.fields.program))
    expect(created.code, created.stderr).toBe(0)
    expect(created.json).toMatchObject({kind: 'svc/custom_flow', code: 'heat_check'})
    expect((await local('flow', 'create', 'city_weather', '--program-json', JSON.stringify(cityWeather.fields.program))).code).toBe(0)
    const slow = [{type: 'connector', connector: 'weather', method: 'slow', into: 'answer'}]
    expect((await local('flow', 'create', 'slow_flow', '--program-json', JSON.stringify(slow))).code).toBe(0)
    const invalid = await local('flow', 'create', 'bad', '--program-json', '[{"type":"loop"}]')
    expect(invalid.code).toBe(5)
    expect(invalid.json.error.details['fields.program'][0]).toMatch(/type must be one of/)

    const list = await remote('flow', 'list')
    expect(list.json.map((f: {code: string}) => f.code)).toEqual(['heat_check', 'city_weather', 'slow_flow'])

    for (const mode of [local, remote]) {
      const ran = await mode('flow', 'run', 'heat_check', '--data-json', '{"note":"cli"}')
      expect(ran.code, ran.stderr).toBe(0)
      expect(ran.json).toMatchObject({status: 'finished', trigger: 'manual', output: {note: 'cli', alert: 'hot in Cairo', temperature: 35}})
    }
    const human = await run(['flow', 'run', 'heat_check', '--data', data])
    expect(human.stdout).toMatch(/finished/)
    expect(human.stdout).toContain('"alert": "hot in Cairo"')
    // Each step that ran, in order, with its label and time (the trace; inputs and outputs are in --json).
    expect(human.stdout).toMatch(/^steps:\n {2}1 {2}.+ ms\n {2}2 {2}weather\.current.+ ms\n {2}3 {2}.+ ms\n/m)

    const runs = await remote('flow', 'runs', '--flow', 'heat_check', '--trigger', 'manual')
    expect(runs.json).toHaveLength(3)
    const shown = await local('flow', 'show', runs.json[0].id)
    expect(shown.json).toMatchObject({id: runs.json[0].id, status: 'finished'})
    expect((await local('flow', 'show', '00000000-0000-4000-8000-000000000000')).code).toBe(4)
    expect((await local('flow', 'run', 'no_such_flow')).code).toBe(4)
  })

  it('app action polls until the flow finishes and prints the result', async () => {
    const res = await fetch(`${server.url}/svc/apps.json`, {
      method: 'POST',
      headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
      body: JSON.stringify({app: {name: 'Weather board', url_code: 'weather-board', app_engine: 'html', css_engine: 'none', source_code: '<p>x</p>',
        actions: [{action: 'weather', flow_code: 'city_weather'}, {action: 'slow', flow_code: 'slow_flow'}]}}),
    })
    expect(res.status).toBe(201)
    appId = ((await res.json()) as {id: string}).id

    const remoteRun = await remote('app', 'action', appId, 'weather', '--data-json', '{"city":"Cairo"}')
    expect(remoteRun.code, remoteRun.stderr).toBe(0)
    expect(remoteRun.json).toMatchObject({status: 'finished', data: {city: 'Cairo', alert: 'hot in Cairo'}})
    const human = await run(['app', 'action', 'weather-board', 'weather', '--data-json', '{"city":"Oslo"}', '--data', data])
    expect(human.code, human.stderr).toBe(0)
    expect(JSON.parse(human.stdout)).toMatchObject({city: 'Oslo', alert: false, temperature: 4})

    // A slow flow: the command reports pending, keeps polling, and prints the result once the API answers.
    const seen = stub.requests.length
    const pending = run(['app', 'action', appId, 'slow', '--url', server.url, '--token', token])
    await stub.waitForRequest('/api/slow', seen)
    // Held until the command got `pending` (past the action's wait, 1.5 s) and polls for the status:
    // a fixed hold could end before a server starved by a loaded machine has answered.
    await expect.poll(() => server.output().includes(`GET /svc/apps/${appId}/action/slow/status`), {timeout: 60_000, interval: 50}).toBe(true)
    stub.release()
    const slow = await pending
    expect(slow.code, slow.stderr).toBe(0)
    expect(slow.stderr).toMatch(/pending \(flow process [0-9a-f-]{36}\), waiting/)
    expect(JSON.parse(slow.stdout)).toEqual({answer: {temperature: 40, city: 'Slowtown'}})
    expect((await local('app', 'action', appId, 'nope')).code).toBe(4)
  })

  it('cron create | list | update | run | delete, and svc serve runs active crons on schedule', async () => {
    const bad = await remote('cron', 'create', '--flow', 'heat_check', '--schedule', 'often')
    expect(bad.code).toBe(5)
    expect(bad.json.error.details.schedule[0]).toMatch(/not a valid cron expression/)

    const created = await remote('cron', 'create', '--flow', 'heat_check', '--schedule', '*/1 * * * * *')
    expect(created.code, created.stderr).toBe(0)
    const cron = created.json
    expect(cron).toMatchObject({kind: 'flow', target_code: 'heat_check', active: true})

    // The scheduler inside `svc serve` starts it within a few seconds, with input {kind: "cron", cron_id}.
    let scheduled: {input: unknown; status: string}[] = []
    for (let i = 0; i < 120 && !scheduled.some((r) => r.status === 'finished'); i++) {
      await new Promise((r) => setTimeout(r, 250))
      scheduled = (await fetch(`${server.url}/connect/flow_processes.json?cron_id=${cron.id}`, {headers: {authorization: `Bearer ${token}`}})
        .then((r) => r.json())) as typeof scheduled
    }
    expect(scheduled.find((r) => r.status === 'finished')).toMatchObject({input: {kind: 'cron', cron_id: cron.id}, status: 'finished'})

    const paused = await local('cron', 'update', String(cron.id), '--no-active')
    expect(paused.code, paused.stderr).toBe(0)
    expect(paused.json).toMatchObject({active: false, next_run_at: null})
    await new Promise((r) => setTimeout(r, 1500)) // a run claimed just before the pause has started by now
    const before = (await remote('flow', 'runs', '--cron', String(cron.id), '--limit', '100')).json.length
    await new Promise((r) => setTimeout(r, 2500))
    const after = (await remote('flow', 'runs', '--cron', String(cron.id), '--limit', '100')).json.length
    expect(after).toBe(before)

    const now = await local('cron', 'run', String(cron.id))
    expect(now.code, now.stderr).toBe(0)
    expect(now.json).toMatchObject({status: 'finished', trigger: 'cron', cron_id: cron.id, input: {kind: 'cron', cron_id: cron.id}})

    const list = await remote('cron', 'list')
    expect(list.json).toEqual([expect.objectContaining({id: cron.id, active: false, last_flow_process_id: now.json.id})])
    expect((await local('cron', 'update', String(cron.id))).code).toBe(2)
    expect((await remote('cron', 'delete', String(cron.id), '--yes')).json).toEqual({id: cron.id, deleted: true})
    expect((await remote('cron', 'delete', String(cron.id), '--yes')).code).toBe(4)
  })

  it('never prints the secret (commands, and the server log)', () => {
    expect(outputs.length).toBeGreaterThan(40)
    for (const text of [...outputs, server.output()]) expect(text).not.toContain(SECRET)
  })
})
