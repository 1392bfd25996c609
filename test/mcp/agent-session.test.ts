import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {api, between, connectStdio, dataOf, refusalOf, seedWorld, textOf, type Connection, type Seeded} from './helpers.js'

/**
 * A scripted agent session (no model): what an agent connected to `svc mcp` does to build on a
 * workspace, step by step, reading each answer as an agent would.
 */
describe('a scripted agent session over svc mcp', () => {
  let seeded: Seeded
  let connection: Connection
  beforeAll(async () => {
    seeded = await seedWorld()
    connection = await connectStdio(seeded.world)
  })
  afterAll(async () => {
    await connection?.close()
    await seeded?.world.close()
  })

  it('reads a schema, writes and searches records, renders a prompt, fixes an app, runs its action', async () => {
    const {client} = connection
    const tool = async (name: string, args: Record<string, unknown>) => client.callTool({name, arguments: args})

    // 1. Read the schema of the database (as a resource, then through the tool).
    const resource = await client.readResource({uri: 'svc://dbs/people/schema'})
    const fields = JSON.parse(between((resource.contents[0] as {text: string}).text)).schema.fields as Record<string, string>
    expect(fields).toEqual({name: 'string', age: 'integer', note: 'string'})
    expect(dataOf(await tool('dbs_schema', {id: 'people'})).schema).toEqual({fields})

    // 2. Create three records that fit it.
    const people = [{name: 'Zoe Quill', age: 28}, {name: 'Zack Quill', age: 35}, {name: 'Mia Stone', age: 41}]
    for (const data of people) {
      const created = await tool('dbs_create', {db_id: 'people', data})
      expect(created.isError).toBeFalsy()
      expect(dataOf(created).data).toEqual(data)
    }

    // 3. Search them with the API's syntax: full text, then a filter, sorted.
    const quills = dataOf(await tool('dbs_search', {db_id: 'people', q: 'Quill', sort: 'age'}))
    expect(quills.map((r: {name: string}) => r.name)).toEqual(['Zoe Quill', 'Zack Quill'])
    expect(dataOf(await tool('dbs_search', {db_id: 'people', filter: {age: 41}})).map((r: {name: string}) => r.name)).toEqual(['Mia Stone'])

    // 4. Render a prompt with variables through prompts/get.
    const prompt = await client.getPrompt({name: 'greet', arguments: {name: 'Zoe', city: 'Gdansk'}})
    expect(prompt.messages[0]!.content).toEqual({type: 'text', text: 'Hello Zoe from Gdansk.'})

    // 5. Replace the app's source with an error and read the compile error.
    const broken = await tool('apps_replace_source', {id: seeded.appId, field: 'source_code', old_string: 'const total = 1 + 2', new_string: 'const total = (1 + 2'})
    expect(broken.isError).toBe(true)
    expect(refusalOf(broken)).toMatch(/^The API refused: 422 source_code: line 2, column 1: Expected "\)"/)
    expect(dataOf(await tool('apps_get_source', {id: seeded.appId})).source_code).toContain('const total = 1 + 2') // nothing saved

    // 6. Fix it: the same replace, correct this time.
    const fixed = await tool('apps_replace_source', {id: seeded.appId, field: 'source_code', old_string: 'const total = 1 + 2', new_string: 'const total = 2 + 3'})
    expect(fixed.isError).toBeFalsy()
    expect(dataOf(await tool('apps_get_source', {id: seeded.appId})).source_code).toContain('const total = 2 + 3')

    // 7. Run the app's action and read its status until it ends.
    const run = dataOf(await tool('apps_run_action', {id: seeded.appId, name: 'twice', input: {n: 21}}))
    let status = run
    while (status.status === 'pending') { // the test's timeout is the only bound
      await new Promise((r) => setTimeout(r, 50))
      status = dataOf(await tool('apps_action_status', {id: seeded.appId, name: 'twice', flow_process_id: run.flow_process_id}))
    }
    expect(status).toMatchObject({flow_process_id: run.flow_process_id, status: 'finished', data: {result: 'n is 21'}})

    // What the agent did is what the API now holds.
    const count = (await api(seeded.world, 'admin', 'GET', '/svc/dbs/people.json')).json.records_count
    expect(count).toBe(4) // the seeded record and the three new ones
  })
})
