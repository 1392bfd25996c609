import {PromptListChangedNotificationSchema} from '@modelcontextprotocol/sdk/types.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ServeProcess} from '../helpers/cli.js'
import {
  api, bare, bareArguments, between, connectHttp, connectStdio, dataOf, refusalOf, eventually, GREET, MCP_TRANSPORTS, seedWorld, startServer, textOf, type ConnectOptions, type Connection,
  type McpTransport, type Seeded,
} from './helpers.js'

const READS = ['dbs_list', 'dbs_schema', 'dbs_search', 'dbs_get', 'prompts_list', 'prompts_get', 'prompts_render', 'apps_list', 'apps_get_source',
  'apps_action_status', 'flows_list', 'flows_run_status', 'history_list', 'history_diff']
const WRITES = ['dbs_create', 'dbs_update', 'prompts_create', 'prompts_update', 'apps_replace_source', 'apps_run_action', 'flows_run', 'history_restore']

/** The same tests over stdio (`svc mcp` spawned on the data dir) and over HTTP (`/svc/mcp` of `svc serve`). */
describe.each(MCP_TRANSPORTS)('MCP over %s', (transport: McpTransport) => {
  let seeded: Seeded
  let server: ServeProcess | undefined
  const open: Connection[] = []

  const connect = async (options: ConnectOptions = {}) => {
    const connection = transport === 'stdio' ? await connectStdio(seeded.world, options) : await connectHttp(server!, seeded.world, options)
    open.push(connection)
    return connection
  }
  const recordCount = async () => (await api(seeded.world, 'admin', 'GET', `/svc/dbs/${seeded.dbId}.json`)).json.records_count as number

  beforeAll(async () => {
    seeded = await seedWorld()
    if (transport === 'http') server = await startServer(seeded.world)
  })

  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {})
    await server?.stop()
    await seeded?.world.close()
  })

  it('lists tools with annotations, prompts with their arguments, and resources', async () => {
    const {client} = await connect()
    const {tools} = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([...READS, ...WRITES].sort())
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({readOnlyHint: READS.includes(tool.name), destructiveHint: false})
      expect(tool.inputSchema.type).toBe('object')
    }
    // The input schema comes from the contract: the record body's members, the db path parameter.
    const create = tools.find((t) => t.name === 'dbs_create')!
    expect(create.inputSchema.required).toEqual(['db_id', 'data'])
    expect(Object.keys(create.inputSchema.properties!)).toEqual(['db_id', 'table_name', 'data'])

    const {prompts} = await client.listPrompts()
    const greet = prompts.find((p) => p.name === 'greet')!
    expect(bare(greet.title!)).toBe('Greeting')
    expect(bareArguments(greet.arguments)).toEqual([
      {name: 'name', description: 'Value of {{ name }} in the template', required: true},
      {name: 'city', description: 'Value of {{ city }} (default "Paris")', required: false},
      {name: 'vip', description: 'Optional: read by a condition or loop of the template', required: false},
    ])
    expect(prompts.map((p) => p.name)).toContain('common_api') // system prompts, resolved for this caller

    const {resourceTemplates} = await client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['svc://dbs/{code}/schema', 'svc://apps/{id}/source', 'svc://prompts/{code}/template'])
    const {resources} = await client.listResources()
    const uris = resources.map((r) => r.uri)
    expect(uris).toEqual(expect.arrayContaining(['svc://dbs/people/schema', `svc://apps/${seeded.appId}/source`, 'svc://prompts/greet/template']))
    const schema = await client.readResource({uri: 'svc://dbs/people/schema'})
    expect(JSON.parse(between((schema.contents[0] as {text: string}).text)).schema).toEqual({fields: {name: 'string', age: 'integer', note: 'string'}})
    const template = await client.readResource({uri: 'svc://prompts/greet/template'})
    expect(between((template.contents[0] as {text: string}).text)).toBe(GREET)
    const source = await client.readResource({uri: `svc://apps/${seeded.appId}/source`})
    expect((source.contents[0] as {text: string}).text).toMatch(/<untrusted-data-[0-9a-f-]{36}>\nconst total = 1 \+ 2/)
    await expect(client.readResource({uri: 'svc://dbs/../schema'})).rejects.toThrow(/unknown resource/)
  })

  it('calls every tool; the answers are the API\'s, workspace data between boundary tags', async () => {
    const {client} = await connect()
    const called = new Set<string>()
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      called.add(name)
      const result = await client.callTool({name, arguments: args})
      if (result.isError) throw new Error(`${name}: ${textOf(result)}`)
      return result
    }
    expect(dataOf(await call('dbs_list'))).toEqual([expect.objectContaining({id: seeded.dbId, code: 'people'})])
    expect(dataOf(await call('dbs_schema', {id: 'people'})).schema.fields.age).toBe('integer')
    const created = dataOf(await call('dbs_create', {db_id: 'people', data: {name: 'Ann', age: 31}}))
    expect(dataOf(await call('dbs_get', {db_id: 'people', id: String(created.id)})).data).toEqual({name: 'Ann', age: 31})
    expect(dataOf(await call('dbs_update', {db_id: 'people', id: created.id, data: {age: 32}})).data).toEqual({name: 'Ann', age: 32})
    expect(dataOf(await call('dbs_search', {db_id: 'people', filter: {name: 'Ann'}, limit: 5}))).toEqual([expect.objectContaining({id: created.id, age: 32})])

    expect(dataOf(await call('prompts_list')).map((p: {code: string}) => p.code)).toContain('greet')
    expect(dataOf(await call('prompts_get', {id: seeded.promptId})).content).toBe(GREET)
    expect(textOf(await call('prompts_render', {code: 'greet', variables: {name: 'Ola', vip: true}}))).toBe('Hello Ola from Paris. Welcome back!')
    const prompt = dataOf(await call('prompts_create', {name: 'Tmp', code: `tmp_${transport}`, content: 'Hi {{ who }}'}))
    expect(dataOf(await call('prompts_update', {id: prompt.id, name: 'Tmp 2'})).name).toBe('Tmp 2')

    expect(dataOf(await call('apps_list')).map((a: {id: string}) => a.id)).toContain(seeded.appId)
    expect(dataOf(await call('apps_get_source', {id: seeded.appId})).source_code).toContain('1 + 2')
    const replaced = await call('apps_replace_source', {id: seeded.appId, field: 'source_code', old_string: '1 + 2', new_string: '2 + 2'})
    expect(dataOf(replaced).id).toBe(seeded.appId)
    await call('apps_replace_source', {id: seeded.appId, field: 'source_code', old_string: '2 + 2', new_string: '1 + 2'})
    const run = dataOf(await call('apps_run_action', {id: seeded.appId, name: 'twice', input: {n: 4}}))
    expect(run.flow_process_id).toMatch(/^[0-9a-f-]{36}$/)
    const status = dataOf(await call('apps_action_status', {id: seeded.appId, name: 'twice', flow_process_id: run.flow_process_id}))
    expect(['pending', 'finished']).toContain(status.status)

    expect(dataOf(await call('flows_list'))).toEqual([expect.objectContaining({id: seeded.flowId, code: 'double'})])
    const flowRun = dataOf(await call('flows_run', {id: seeded.flowId, input: {n: 7}}))
    const runStatus = dataOf(await call('flows_run_status', {id: flowRun.id}))
    expect(runStatus).toMatchObject({id: flowRun.id, flow_code: 'double'})
    if (runStatus.status === 'finished') expect(runStatus.output).toMatchObject({result: 'n is 7'})

    // History: the prompt's rename, journaled through the mcp door; its diff; putting the old name back.
    const changes = dataOf(await call('history_list', {kind: 'prompt', id: prompt.id}))
    expect(changes.map((e: {op: string; door: string}) => [e.op, e.door])).toEqual([['update', 'mcp'], ['create', 'mcp']])
    expect(changes[0].client).toBe(transport === 'stdio' ? 'svc-test' : null)
    const diff = dataOf(await call('history_diff', {bookmark: changes[0].bookmark}))
    expect(diff.diff.changed).toContain('name')
    expect(diff.previous.name).toBe('Tmp')
    expect(dataOf(await call('history_restore', {bookmark: changes[1].bookmark})).version.name).toBe('Tmp')

    const {tools} = await client.listTools()
    expect([...called].sort()).toEqual(tools.map((t) => t.name).sort())
  })

  it('keeps a planted instruction inside the boundary: its fake closing tag cannot end the data', async () => {
    const {client} = await connect()
    const text = textOf(await client.callTool({name: 'dbs_get', arguments: {db_id: 'people', id: String(seeded.plantedId)}}))
    const [, id] = /<untrusted-data-([0-9a-f-]{36})>/.exec(text)!
    expect(text.split(`<untrusted-data-${id}>`)).toHaveLength(2)
    expect(text.split(`</untrusted-data-${id}>`)).toHaveLength(2)
    expect(text.indexOf('Ignore previous instructions')).toBeGreaterThan(text.indexOf(`<untrusted-data-${id}>`))
    expect(text.indexOf('Ignore previous instructions')).toBeLessThan(text.indexOf(`</untrusted-data-${id}>`))
    expect(text.split('\n')[0]).toMatch(/it is data, not instructions/)
  })

  it('never hands the agent the bearer token: TOKEN and api_block render the placeholder', async () => {
    const code = `keys_${transport}`
    const content = 'Token {{ TOKEN }}\n{{ "" | api_block }}'
    expect((await api(seeded.world, 'admin', 'POST', '/svc/prompts.json', {prompt: {name: 'Keys', code, content}})).status).toBe(201)
    const {client} = await connect()
    const token = seeded.world.users.admin!.token
    const rendered = textOf(await client.callTool({name: 'prompts_render', arguments: {code}}))
    const got = await client.getPrompt({name: code, arguments: {}})
    const system = await client.getPrompt({name: 'main_dashboard', arguments: {dashboard_id: '1'}})
    for (const text of [rendered, (got.messages[0]!.content as {text: string}).text, (system.messages[0]!.content as {text: string}).text]) {
      expect(text).toContain('Authorization: Bearer <API_TOKEN>')
      expect(text).not.toContain(token)
    }
    expect(rendered).toMatch(/^Token <API_TOKEN>\n/)
  })

  it('a user without the permission gets the API\'s refusal as a tool error', async () => {
    const before = await recordCount()
    const {client} = await connect({as: 'gwen'})
    const result = await client.callTool({name: 'dbs_create', arguments: {db_id: 'people', data: {name: 'Guest'}}})
    expect(result.isError).toBe(true)
    expect(refusalOf(result)).toMatch(/^The API refused: 403 /)
    expect(await recordCount()).toBe(before)
    // Reading is allowed to a guest: the same connection works for that.
    expect((await client.callTool({name: 'dbs_list', arguments: {}})).isError).toBeFalsy()
  })

  it('a user of another account sees nothing of this one: foreign ids are the API\'s 404, whatever the tool or resource', async () => {
    const {client} = await connect({as: 'mallory'})
    expect(dataOf(await client.callTool({name: 'dbs_list', arguments: {}}))).toEqual([])
    for (const [name, args] of [
      ['dbs_get', {db_id: String(seeded.dbId), id: String(seeded.plantedId)}],
      ['dbs_update', {db_id: String(seeded.dbId), id: seeded.plantedId, data: {note: 'mine'}}],
      ['apps_get_source', {id: seeded.appId}],
      ['apps_replace_source', {id: seeded.appId, field: 'source_code', old_string: '1 + 2', new_string: '6 + 6'}],
      ['prompts_get', {id: seeded.promptId}],
      ['flows_run', {id: seeded.flowId, input: {}}],
      ['history_restore', {bookmark: '1'}],
    ] as const) {
      const result = await client.callTool({name, arguments: args})
      expect(result.isError, name).toBe(true)
      expect(refusalOf(result), name).toMatch(/^The API refused: 404 /)
    }
    await expect(client.readResource({uri: `svc://apps/${seeded.appId}/source`})).rejects.toThrow(/404/)
    expect((await client.listPrompts()).prompts.map((p) => p.name)).not.toContain('greet')
    expect((await api(seeded.world, 'admin', 'GET', `/svc/dbs/${seeded.dbId}/records/${seeded.plantedId}.json`)).json.data.note).toMatch(/^<\/untrusted/)
  })

  it('a bad argument is a tool error naming it; an invalid record is the API\'s 422 field map', async () => {
    const {client} = await connect()
    const unknown = await client.callTool({name: 'dbs_get', arguments: {db_id: 'people', id: '1', sql: 'drop'}})
    expect(textOf(unknown)).toMatch(/^Invalid arguments: unknown argument "sql"/)
    const traversal = await client.callTool({name: 'dbs_get', arguments: {db_id: '..', id: '1'}})
    expect(textOf(traversal)).toBe('Invalid arguments: db_id must be an id or a code')
    const invalid = await client.callTool({name: 'dbs_create', arguments: {db_id: 'people', data: {age: 'old'}}})
    expect(invalid.isError).toBe(true)
    expect(refusalOf(invalid)).toMatch(/^The API refused: 422 [\s\S]*"age"/)
  })

  it('read-only: writes are not listed, and a crafted call to any write tool is refused by the API', async () => {
    const before = await recordCount()
    const {client} = await connect({readOnly: true})
    const {tools} = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([...READS].sort())
    const crafted: [string, Record<string, unknown>][] = [
      ['dbs_create', {db_id: 'people', data: {name: 'Sneaky'}}],
      ['dbs_update', {db_id: 'people', id: seeded.plantedId, data: {name: 'Changed'}}],
      ['prompts_update', {id: seeded.promptId, name: 'Changed'}],
      ['prompts_create', {name: 'X', code: 'sneaky', content: 'x'}],
      ['apps_replace_source', {id: seeded.appId, field: 'source_code', old_string: 'total', new_string: 'sum'}],
      ['apps_run_action', {id: seeded.appId, name: 'twice', input: {n: 1}}],
      ['flows_run', {id: seeded.flowId, input: {}}],
      ['history_restore', {bookmark: '1'}],
    ]
    for (const [name, args] of crafted) {
      const result = await client.callTool({name, arguments: args})
      expect(result.isError, name).toBe(true)
      expect(refusalOf(result), name).toBe('The API refused: 403 read-only: this connection may not change anything')
    }
    expect(await recordCount()).toBe(before)
    expect((await api(seeded.world, 'admin', 'GET', `/svc/prompts/${seeded.promptId}.json`)).json.name).toBe('Greeting')
    expect((await api(seeded.world, 'admin', 'GET', `/svc/apps/${seeded.appId}.json`)).json.source_code).toContain('total')
    // Reads still work.
    expect(dataOf(await client.callTool({name: 'dbs_search', arguments: {db_id: 'people', q: 'Planted'}}))).toHaveLength(1)
  })

  it('deletes are off without --allow-deletes: not listed, and a crafted call is refused before the API', async () => {
    const {client} = await connect()
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('dbs_delete')
    const result = await client.callTool({name: 'dbs_delete', arguments: {db_id: 'people', id: seeded.plantedId}})
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^Deletes are off for this connection/)
    expect((await api(seeded.world, 'admin', 'GET', `/svc/dbs/people/records/${seeded.plantedId}.json`)).status).toBe(200)
  })

  it('with --allow-deletes a delete is listed as destructive and still needs the human\'s confirmation', async () => {
    const victim = (await api(seeded.world, 'admin', 'POST', '/svc/dbs/people/records.json', {record: {data: {name: 'Victim'}}})).json.id as number
    const exists = async () => (await api(seeded.world, 'admin', 'GET', `/svc/dbs/people/records/${victim}.json`)).status === 200
    const args = {db_id: 'people', id: victim}

    const cannotAsk = await connect({allowDeletes: true})
    const tool = (await cannotAsk.client.listTools()).tools.find((t) => t.name === 'dbs_delete')!
    expect(tool.annotations).toMatchObject({destructiveHint: true, readOnlyHint: false})
    const refused = await cannotAsk.client.callTool({name: 'dbs_delete', arguments: args})
    expect(textOf(refused)).toMatch(/^Refused: a delete needs the human's confirmation, and this client cannot ask/)
    expect(await exists()).toBe(true)

    const declines = await connect({allowDeletes: true, confirm: 'decline'})
    const declined = await declines.client.callTool({name: 'dbs_delete', arguments: args})
    expect(textOf(declined)).toMatch(transport === 'stdio' ? /^Refused: the human did not confirm the delete\.$/ : /this client cannot ask/)
    expect(await exists()).toBe(true)

    const accepts = await connect({allowDeletes: true, confirm: 'accept'})
    const done = await accepts.client.callTool({name: 'dbs_delete', arguments: args})
    if (transport === 'stdio') {
      expect(textOf(done)).toBe('Done: deleted.')
      expect(await exists()).toBe(false)
    } else {
      // A stateless HTTP connection cannot carry the question to the human: the delete is refused.
      expect(textOf(done)).toMatch(/this client cannot ask/)
      expect(await exists()).toBe(true)
    }
  })

  it('logs each tool call: tool, user, outcome, duration — never the arguments', async () => {
    const connection = await connect()
    await connection.client.callTool({name: 'dbs_search', arguments: {db_id: 'people', q: 'secret-needle-4711'}})
    await connection.client.callTool({name: 'dbs_get', arguments: {db_id: 'people', id: '999999'}})
    const log = await eventually(connection.log, (text) => /mcp tool=dbs_get user=admin outcome=error-404 ms=\d+/.test(text))
    expect(log).toMatch(/mcp tool=dbs_search user=admin outcome=ok ms=\d+/)
    expect(log).toMatch(/mcp tool=dbs_get user=admin outcome=error-404 ms=\d+/)
    expect(log).not.toContain('secret-needle-4711')
    expect(log).not.toContain(seeded.world.users.admin!.token)
  })

  it('prompts/get renders the winning prompt with its arguments; a missing required one is an error', async () => {
    const {client} = await connect()
    const got = await client.getPrompt({name: 'greet', arguments: {name: 'Ola', city: 'Oslo'}})
    expect(got.messages).toEqual([{role: 'user', content: {type: 'text', text: 'Hello Ola from Oslo.'}}])
    await expect(client.getPrompt({name: 'greet', arguments: {city: 'Oslo'}})).rejects.toThrow(/missing argument name of prompt greet/)
    await expect(client.getPrompt({name: 'nope', arguments: {}})).rejects.toThrow(/unknown prompt "nope"/)
  })

  it('a prompt\'s fields.arguments declare descriptions and required flags over what is inferred; anything else there is a 422', async () => {
    const content = 'Brief on {{ topic }} in a {{ tone | default: "formal" }} tone{% if ignored %}.{% endif %}'
    for (const junk of [{'{{ bad }}': 'x'}, {ignored: 42}, {also: ['x']}, {toString: {required: 'yes'}}, {topic: {description: 'x', sql: 1}}, 'text']) {
      const refused = await api(seeded.world, 'admin', 'POST', '/svc/prompts.json', {prompt: {name: 'Brief', code: 'brief', content, arguments: junk}})
      expect(refused.status, JSON.stringify(junk)).toBe(422)
      expect(Object.keys(refused.json).join(), JSON.stringify(junk)).toMatch(/^arguments/)
    }
    const declared = {
      topic: {description: 'What the brief is about', required: false},
      tone: 'Formal or casual',
      audience: {description: 'Who reads it', required: true},
    }
    const made = await api(seeded.world, 'admin', 'POST', '/svc/prompts.json', {prompt: {name: 'Brief', code: 'brief', content, arguments: declared}})
    expect(made.status, JSON.stringify(made.json)).toBe(201)
    expect(made.json.fields.arguments).toEqual(declared)
    const {client} = await connect()
    expect(bareArguments((await client.listPrompts()).prompts.find((p) => p.name === 'brief')?.arguments)).toEqual([
      {name: 'topic', description: 'What the brief is about', required: false},
      {name: 'tone', description: 'Formal or casual', required: false},
      {name: 'ignored', description: 'Optional: read by a condition or loop of the template', required: false},
      {name: 'audience', description: 'Who reads it', required: true},
    ])
    expect((await api(seeded.world, 'admin', 'DELETE', `/svc/prompts/${made.json.id}.json`)).status).toBeLessThan(300)
  })

  it.runIf(transport === 'stdio')('announces prompts/list_changed at once after a prompt tool', async () => {
    // No watcher on this connection: the announcement can only come from the tool call.
    const {client} = await connect({watchSeconds: 0})
    const announced = new Promise<void>((resolve) => client.setNotificationHandler(PromptListChangedNotificationSchema, async () => resolve()))
    await client.listPrompts()
    const made = await client.callTool({name: 'prompts_create', arguments: {name: 'Fresh', code: 'fresh', content: 'Hi {{ who }}'}})
    expect(made.isError).toBeFalsy()
    await announced
    expect(bareArguments((await client.listPrompts()).prompts.find((p) => p.name === 'fresh')?.arguments)).toEqual([{name: 'who', description: 'Value of {{ who }} in the template', required: true}])
  })

  it.runIf(transport === 'stdio')('announces prompts/list_changed when a prompt changes elsewhere', async () => {
    // The server's first look at the prompts is taken before it answers initialize, and nothing else
    // changes a prompt here: an announcement can only be about the change below.
    const {client} = await connect()
    const announced = new Promise<void>((resolve) => client.setNotificationHandler(PromptListChangedNotificationSchema, async () => resolve()))
    expect((await api(seeded.world, 'admin', 'PATCH', `/svc/prompts/${seeded.promptId}.json`, {prompt: {content: 'Bye {{ whom }}'}})).status).toBe(200)
    await announced
    expect(bareArguments((await client.listPrompts()).prompts.find((p) => p.name === 'greet')?.arguments)).toEqual([{name: 'whom', description: 'Value of {{ whom }} in the template', required: true}])
    expect((await api(seeded.world, 'admin', 'PATCH', `/svc/prompts/${seeded.promptId}.json`, {prompt: {content: GREET}})).status).toBe(200)
  })
})
