import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {connectStdio, seedWorld, textOf, type Connection, type Seeded} from '../mcp/helpers.js'

/** Issue 39, item 5: the smaller cuts of the daily loop (the console's are tested with the console). */
describe('the daily loop: smaller cuts', () => {
  const data = tempDir()
  const files = tempDir()

  beforeAll(async () => {
    const r = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
  })

  it('a variable with a default is not "not given, rendered blank" (fast path, oclif, and the preview the console shows)', async () => {
    const file = join(files, 'hello.md')
    writeFileSync(file, 'Hello {{ name | default: "friend" }}{{ punct }}')
    let r = await svc(['prompt', 'create', '--name', 'Hello', '--code', 'hello', '--content-file', file, '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
    for (const env of [{}, {SVC_NO_FASTPATH: '1'}]) {
      r = await svc(['prompt', 'render', 'hello', '--data', data], {env})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toBe('Hello friend')
      // `punct` has no default: it still warns, and only it.
      expect(r.stderr).toContain('Warning: not given, rendered blank: punct ')
      expect(r.stderr).not.toMatch(/rendered blank:.*name/)
    }
    // The console's preview reads the same list (POST /svc/prompts/preview.json → missing).
    r = await svc(['prompt', 'render', 'hello', '--var', 'punct=!', '--data', data])
    expect(r.stdout).toBe('Hello friend!')
    expect(r.stderr).not.toContain('rendered blank')
  })

  it('svc prompt raw of a code stored in two scopes names a flag it has (--scope), and --scope picks one', async () => {
    let r = await svc(['prompt', 'create', '--name', 'Greet', '--code', 'greet', '--content', 'account copy', '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
    r = await svc(['prompt', 'create', '--name', 'Greet', '--code', 'greet', '--content', 'my copy', '--scope', 'user', '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
    r = await svc(['prompt', 'raw', 'greet', '--data', data])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('is stored in 2 scopes')
    expect(r.stderr).toContain('--scope to pick one')
    r = await svc(['prompt', 'raw', 'greet', '--scope', 'user', '--data', data])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('my copy')
    // update's --scope moves a prompt: its hint does not offer it as a picker.
    r = await svc(['prompt', 'update', 'greet', '--name', 'Hi', '--data', data])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('is stored in 2 scopes')
    expect(r.stderr).not.toContain('--scope to pick one')
  })

  it('npm ci runs no telemetry postinstall: package.json opts out of scarf (swagger-ui-dist)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.scarfSettings).toEqual({enabled: false})
  })
})

describe('MCP dbs_search says where q looked when nothing matched', () => {
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

  it('names the fields of the schema and search_in; says nothing more when search_in is given or records match', async () => {
    const tool = (args: Record<string, unknown>) => connection.client.callTool({name: 'dbs_search', arguments: args})
    const empty = textOf(await tool({db_id: 'people', q: 'no such text'}))
    expect(empty).toContain('No records match. q looked only in the fields of the schema: name, age, note.')
    expect(empty).toContain('To look in others: search_in=name,age,note,FIELD')
    expect(empty).toMatch(/<untrusted-data-[0-9a-f-]{36}>\n\[\]\n<\/untrusted-data-/)
    expect(textOf(await tool({db_id: 'people', q: 'no such text', search_in: 'note'}))).not.toContain('looked only')
    expect(textOf(await tool({db_id: 'people', q: 'Planted'}))).not.toContain('looked only')
    const list = await connection.client.listTools()
    const search = list.tools.find((t) => t.name === 'dbs_search')!
    expect(JSON.stringify(search.inputSchema)).toContain('search_in')
    expect(search.description).toContain('search_in')
  })
})
