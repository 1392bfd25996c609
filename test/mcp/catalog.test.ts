import {Client as McpClient} from '@modelcontextprotocol/sdk/client/index.js'
import {InMemoryTransport} from '@modelcontextprotocol/sdk/inMemory.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {Client, type Backend} from '../../src/client/backend.js'
import {promptArguments} from '../../src/core/prompts/arguments.js'
import {createMcpServer, tokenCost} from '../../src/mcp/server.js'
import {GROUPS, parseGroups} from '../../src/mcp/tools.js'
import {svc} from '../helpers/cli.js'
import {createWorld, type World} from '../helpers/world.js'

/** The tools/list a client sees, from the server factory over the app in-process (no process to spawn). */
async function toolsList(world: World, options: {groups?: string; readOnly?: boolean; allowDeletes?: boolean} = {}) {
  const backend: Backend = {
    kind: 'embedded', description: 'test', baseUrl: 'http://localhost', close: async () => {},
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers)
      headers.set('authorization', `Bearer ${world.users.admin!.token}`)
      return Promise.resolve(world.app.request(`http://localhost${path}`, {...init, headers}))
    },
  }
  const server = createMcpServer({
    client: new Client(backend), groups: parseGroups(options.groups), readOnly: options.readOnly ?? false,
    allowDeletes: options.allowDeletes ?? false, canAsk: true, version: '0.0.0-test',
  })
  const [a, b] = InMemoryTransport.createLinkedPair()
  const client = new McpClient({name: 'snapshot', version: '1'})
  await Promise.all([server.connect(a), client.connect(b)])
  const list = await client.listTools()
  await client.close()
  return list
}

describe('tools/list', () => {
  let world: World
  beforeAll(async () => {
    world = await createWorld({users: [{login: 'admin', role: 'admin'}]})
  })
  afterAll(() => world.close())

  it('the default list costs at most 3,000 tokens (characters / 4)', async () => {
    const list = await toolsList(world)
    expect(tokenCost(list)).toBeLessThanOrEqual(3000)
    // With every delete tool listed it still fits.
    expect(tokenCost(await toolsList(world, {allowDeletes: true}))).toBeLessThanOrEqual(3000)
  })

  it('matches its snapshot (a change to a tool\'s name, description, schema or annotations shows here)', async () => {
    await expect(JSON.stringify(await toolsList(world), null, 1)).toMatchFileSnapshot('__snapshots__/tools-list.json')
  })

  it('svc mcp --list previews the tools with their token cost, and the prompts with their arguments', async () => {
    const target = ['--data', world.dataDir, ...(world.databaseUrl ? ['--database-url', world.databaseUrl] : [])]
    const listed = await svc(['mcp', '--list', ...target, '--json'])
    expect(listed.code).toBe(0)
    expect(listed.json.tools_tokens).toBe(tokenCost(await toolsList(world)))
    expect(listed.json.tools.map((t: {name: string}) => t.name)).toEqual((await toolsList(world)).tools.map((t) => t.name))
    expect(listed.json.prompts).toContainEqual({name: 'main_dashboard', arguments: [{name: 'dashboard_id', required: true}]})
    const text = await svc(['mcp', '--list', ...target, '--read-only', '--tools', 'flows'])
    expect(text.stdout).toMatch(/^flows_list +read +~\d+ tokens\nflows_run_status +read +~\d+ tokens\ntools\/list: 2 tools, ~\d+ tokens/)
    const bad = await svc(['mcp', '--list', ...target, '--tools', 'nope'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('unknown tool group "nope"')
  })

  it('--tools picks groups; read-only lists reads only; unknown groups are refused', async () => {
    const prompts = await toolsList(world, {groups: 'prompts'})
    expect(prompts.tools.map((t) => t.name)).toEqual(['prompts_list', 'prompts_get', 'prompts_render', 'prompts_create', 'prompts_update'])
    const readOnly = await toolsList(world, {groups: 'dbs', readOnly: true})
    expect(readOnly.tools.map((t) => t.name)).toEqual(['dbs_list', 'dbs_schema', 'dbs_search', 'dbs_get'])
    expect(parseGroups('all')).toEqual([...GROUPS])
    expect(() => parseGroups('dbs,sql')).toThrow('unknown tool group "sql"; use dbs, prompts, apps, flows, history or all')
  })
})

describe('prompt arguments (liquidjs static analysis)', () => {
  const cases: Record<string, string> = {
    plain: 'Hello {{ name }}!',
    defaulted: '{{ greeting | default: "Hi" }} {{ name | upcase }}',
    condition_only: '{% if vip %}VIP{% endif %}{% unless quiet %}!{% endunless %}',
    loop: '{% for item in items %}- {{ item.title }}{% endfor %}',
    nested_path: '{{ customer.name }} <{{ customer.email }}>',
    automatic_left_out: '{{ TOKEN }} {{ ACCOUNT_URL }} {{ account_url }} {{ date }} {{ topic }}',
    assigned_is_local: '{% assign who = "x" %}{{ who }} {{ other }}',
    printed_and_defaulted: '{{ name | default: "you" }} and {{ name }}',
    invalid: '{% if %}',
    api_block: '{{ "dbs_api" | api_block }} {{ dashboard_id }}',
  }

  it('names each argument with a description and a required flag (snapshot)', async () => {
    const out = Object.fromEntries(Object.entries(cases).map(([name, template]) => [name, promptArguments(template)]))
    await expect(JSON.stringify(out, null, 1)).toMatchFileSnapshot('__snapshots__/prompt-arguments.json')
    expect(out.plain).toEqual([{name: 'name', description: 'Value of {{ name }} in the template', required: true}])
    expect(out.defaulted!.map((a) => [a.name, a.required])).toEqual([['greeting', false], ['name', true]])
    expect(out.condition_only!.every((a) => !a.required)).toBe(true)
    expect(out.automatic_left_out!.map((a) => a.name)).toEqual(['topic'])
    expect(out.assigned_is_local!.map((a) => a.name)).toEqual(['other'])
    expect(out.printed_and_defaulted).toEqual([{name: 'name', description: 'Value of {{ name }} in the template', required: true}])
    expect(out.invalid).toEqual([])
  })
})
