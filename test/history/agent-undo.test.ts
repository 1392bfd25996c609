// The scenario (docs/history.md "Undo an agent's session"): an MCP session replaces an app's
// source, updates 50 records, deletes a prompt and a db; one command lists exactly those changes,
// one restores them all, every resource reads back byte for byte as before, and that restore can
// itself be undone. Over `svc mcp` (stdio) and the CLI on the same data dir; both stores.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {api, APP_SOURCE, connectStdio, seedWorld, type Connection, type Seeded} from '../mcp/helpers.js'

describe('undoing an agent\'s session', () => {
  let seeded: Seeded
  let connection: Connection
  beforeAll(async () => {
    seeded = await seedWorld()
    connection = await connectStdio(seeded.world, {allowDeletes: true, confirm: 'accept'})
  })
  afterAll(async () => {
    await connection?.close()
    await seeded?.world.close()
  })

  it('lists exactly what the session changed, restores it all byte for byte, and the restore is undone', async () => {
    const {world, appId, promptId} = seeded
    const get = async (path: string) => (await api(world, 'admin', 'GET', path)).text
    const target = ['--data', world.dataDir, ...(world.databaseUrl ? ['--database-url', world.databaseUrl] : [])]
    // A second db the session will drop, and 50 records of the first it will update.
    const scratch = (await api(world, 'admin', 'POST', '/svc/dbs.json', {db: {name: 'Scratch', code: 'scratch'}})).json
    for (let i = 0; i < 3; i++) await api(world, 'admin', 'POST', `/svc/dbs/${scratch.id}/records.json`, {record: {data: {i}}})
    const ids: number[] = []
    for (let i = 0; i < 50; i++) ids.push((await api(world, 'admin', 'POST', `/svc/dbs/${seeded.dbId}/records.json`, {record: {data: {name: `P${i}`, age: i}}})).json.id)

    const reads = () => Promise.all([
      get(`/svc/apps/${appId}.json`), get(`/svc/prompts/${promptId}.json`), get(`/svc/dbs/${seeded.dbId}/records.json?limit=100`),
      get(`/svc/dbs/${scratch.id}.json`), get(`/svc/dbs/${scratch.id}/records.json`),
    ])
    const before = await reads()
    await new Promise((r) => setTimeout(r, 10))
    const since = new Date().toISOString()
    await new Promise((r) => setTimeout(r, 10))

    // The session.
    const tool = async (name: string, args: Record<string, unknown>) => {
      const result = await connection.client.callTool({name, arguments: args})
      expect(result.isError, `${name} ${JSON.stringify(result.content).slice(0, 300)}`).toBeFalsy()
    }
    await tool('apps_replace_source', {id: appId, field: 'source_code', old_string: 'const total = 1 + 2', new_string: 'const total = 40 + 2'})
    for (const id of ids) await tool('dbs_update', {db_id: seeded.dbId, id: String(id), data: {note: 'touched by the agent'}})
    await tool('prompts_delete', {id: promptId})
    // The MCP catalog has no tool that drops a whole db: the session's client drops it through the
    // same door (what an MCP client's own API call says of itself: door mcp, its name).
    const dropped = await world.app.request(`http://localhost/svc/dbs/${scratch.id}.json`, {
      method: 'DELETE', headers: {authorization: `Bearer ${world.users.admin!.token}`, 'x-svc-door': 'mcp', 'x-svc-client': 'svc-test'},
    })
    expect(dropped.status).toBe(204)
    expect((await api(world, 'admin', 'GET', `/svc/apps/${appId}.json`)).json.source_code).toBe(APP_SOURCE.replace('1 + 2', '40 + 2'))

    // One command lists exactly those changes.
    const listed = await svc(['history', '--since', since, '--door', 'mcp', '--limit', '100', '--json', ...target])
    expect(listed.code, listed.stderr).toBe(0)
    const changes = (listed.json as {kind: string; id: string; op: string; client: string}[]).map((e) => `${e.kind} ${e.op} ${e.id}`).sort()
    expect(changes).toEqual([
      `app update ${appId}`, `db delete ${scratch.id}`, `prompt delete ${promptId}`, ...ids.map((id) => `record update ${id}`),
    ].sort())
    expect(new Set((listed.json as {client: string}[]).map((e) => e.client))).toEqual(new Set(['svc-test']))

    // One restores them all: every resource reads back byte for byte.
    const dry = await svc(['restore', '--since', since, '--door', 'mcp', '--client', 'svc-test', '--dry-run', ...target])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain('Would restore 53')
    expect(await reads()).not.toEqual(before)
    const undoFrom = new Date().toISOString()
    const restored = await svc(['restore', '--since', since, '--door', 'mcp', '--client', 'svc-test', '--yes', '--json', ...target])
    expect(restored.code, restored.stderr).toBe(0)
    expect(restored.json.conflicts).toEqual([])
    expect(restored.json.restored).toHaveLength(53)
    expect(await reads()).toEqual(before)

    // Without --yes and without a terminal, a restore refuses and changes nothing.
    const refused = await svc(['restore', '--since', undoFrom, '--door', 'cli', ...target])
    expect(refused.code).toBe(2)
    expect(await reads()).toEqual(before)

    // The restore is itself journaled (door cli): undone the same way, the agent's versions are back.
    const undone = await svc(['restore', '--since', undoFrom, '--door', 'cli', '--yes', '--json', ...target])
    expect(undone.code, undone.stderr).toBe(0)
    expect(undone.json.restored).toHaveLength(53)
    expect((await api(world, 'admin', 'GET', `/svc/apps/${appId}.json`)).json.source_code).toBe(APP_SOURCE.replace('1 + 2', '40 + 2'))
    expect((await api(world, 'admin', 'GET', `/svc/prompts/${promptId}.json`)).status).toBe(404)
    expect((await api(world, 'admin', 'GET', `/svc/dbs/${scratch.id}.json`)).status).toBe(404)
  })
})
