import {spawn} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {BIN, svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

/** Runs the binary under `script` so it has a terminal, typing `keys`. */
function svcTty(args: string[], keys: string): Promise<{code: number; out: string}> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {...process.env, NO_COLOR: '1'}
    for (const k of Object.keys(env)) if (k.startsWith('SVC_') || k === 'CI') delete env[k]
    const cmd = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
    const child = spawn('script', ['-qec', cmd, '/dev/null'], {env})
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code: code ?? -1, out}))
    child.stdin.end(keys)
  })
}

// Each call runs the real binary (~0.5-3 s on a busy 2-core machine): these are long tests.
vi.setConfig({testTimeout: 300_000, hookTimeout: 120_000})

const data = tempDir()
let server: ServeProcess | undefined
let token = ''

beforeAll(async () => {
  const r = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
  token = r.json.token
  server = await svcServe(data)
})
afterAll(async () => {
  await server?.stop()
})

for (const mode of ['embedded', 'remote'] as const) {
  describe(`svc db (${mode})`, () => {
    const target = () => (mode === 'embedded' ? ['--data', data] : ['--url', server!.url, '--token', token])
    const run = (args: string[], input?: string) => svc([...args, ...target()], {input})
    const code = `people-${mode}`
    const dir = tempDir()

    it('create, list, get, replace', async () => {
      let r = await run(['db', 'create', 'People', '--code', code, '--schema', '{"fields":{"name":{"type":"string","required":true},"age":"integer","city":"string"},"indexed_fields":["name","age"]}',
        '--public-methods', '{"create":{"auto_fields":{"ip":"{ip}"}},"list":true}', '--json'])
      expect(r.code, r.stderr + r.stdout).toBe(0)
      expect(r.json).toMatchObject({code, records_count: 0, public_methods: {list: true}})
      r = await run(['db', 'list', '--json'])
      expect(r.json.map((d: any) => d.code)).toContain(code)
      r = await run(['db', 'list'])
      expect(r.stdout).toContain(code)
      r = await run(['db', 'get', code])
      expect(r.stdout).toContain('"indexed_fields"')
      r = await run(['db', 'replace', code, '--field', 'schema', '--old', '"city": "string"', '--new', '"city": "text"', '--json'])
      expect(r.code, r.stdout).toBe(0)
      expect(r.json.schema.fields.city).toBe('text')
      r = await run(['db', 'replace', code, '--field', 'schema', '--old', 'nowhere', '--new', 'x', '--json'])
      expect(r.code).toBe(5)
      expect(r.json.error.details).toEqual({old_string: ['not found']})
      r = await run(['db', 'create', 'Bad', '--schema', '{nope'])
      expect(r.code).toBe(2)
    })

    it('records create, update, list, delete; validation exits 5', async () => {
      let r = await run(['db', 'records', 'create', code, '{"name":"Ada","age":"36","city":"Berlin"}', '--json'])
      expect(r.code, r.stdout + r.stderr).toBe(0)
      expect(r.json.data).toEqual({name: 'Ada', age: 36, city: 'Berlin'})
      const id = r.json.id
      r = await run(['db', 'records', 'create', code, '{"age":"old"}'])
      expect(r.code).toBe(5)
      expect(r.stderr).toContain('name: is required')
      expect(r.stderr).toContain('age: must be an integer')
      r = await run(['db', 'records', 'update', code, String(id), '{"age":37}', '--json'])
      expect(r.json.data).toEqual({name: 'Ada', age: 37, city: 'Berlin'})
      await run(['db', 'records', 'create', code, '{"name":"Bob","age":20,"city":"Paris"}'])
      r = await run(['db', 'records', 'list', code, '--limit', '1', '--json'])
      expect(r.json.map((x: any) => x.data.name)).toEqual(['Bob'])
      r = await run(['db', 'search', code, '--q', 'ad', '--json'])
      expect(r.json.map((x: any) => x.name)).toEqual(['Ada'])
      r = await run(['db', 'search', code, '--filter', 'age=37', '--fields', 'name', '--json'])
      expect(r.json).toEqual([{name: 'Ada', id, created_at: expect.any(String), updated_at: expect.any(String)}])
      r = await run(['db', 'search', code, '--filter', 'city=PAR*', '--sort', '-age', '--json'])
      expect(r.json.map((x: any) => x.name)).toEqual(['Bob'])
      r = await run(['db', 'search', code, '--filter', `na'me=1`, '--json'])
      expect(r.code).toBe(5)
      r = await run(['db', 'records', 'delete', code, String(id)])
      expect(r.code).toBe(0)
      r = await run(['db', 'records', 'delete', code, String(id)])
      expect(r.code).toBe(4)
    })

    it('call a public method', async () => {
      let r = await run(['db', 'call', code, 'create', '{"name":"Pub","age":1}', '--json'])
      expect(r.code, r.stdout + r.stderr).toBe(0)
      expect(r.json.data).toMatchObject({name: 'Pub', ip: '127.0.0.1'})
      r = await run(['db', 'call', code, 'list', '--param', 'limit=1', '--json'])
      expect(r.json.map((x: any) => x.data.name)).toEqual(['Pub'])
      r = await run(['db', 'call', code, 'delete', '--id', '1', '--json'])
      expect(r.code).toBe(4)
    })

    it('export writes NDJSON atomically; import reads it back in batches', async () => {
      const file = join(dir, 'out.ndjson')
      let r = await run(['db', 'export', code, '--out', file, '--json'])
      expect(r.code, r.stdout + r.stderr).toBe(0)
      expect(r.json.exported).toBe(2)
      const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      expect(lines.map((l) => l.data.name)).toEqual(['Bob', 'Pub'])
      expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([])
      await run(['db', 'create', 'Copy', '--code', `${code}-copy`, '--schema', '{"fields":{"name":"string","age":"integer"}}'])
      const big = lines.concat(Array.from({length: 7}, (_, i) => ({data: {name: `n${i}`, age: String(i)}})))
      writeFileSync(file, big.map((l) => JSON.stringify(l)).join('\n') + '\n')
      r = await run(['db', 'import', `${code}-copy`, file, '--batch', '3', '--json'])
      expect(r.code, r.stdout + r.stderr).toBe(0)
      expect(r.json).toEqual({imported: 9})
      r = await run(['db', 'get', `${code}-copy`, '--json'])
      expect(r.json.records_count).toBe(9)
      r = await run(['db', 'import', `${code}-copy`, '-', '--json'], '{"name":"stdin","age":"x"}\n')
      expect(r.code).toBe(5)
      r = await run(['db', 'import', `${code}-copy`, '-', '--json'], '{"name":"stdin","age":"4"}\nnot json\n')
      expect(r.code).toBe(2)
      r = await run(['db', 'export', `${code}-copy`, '--out', '-'])
      expect(r.stdout.trim().split('\n')).toHaveLength(9)
      r = await run(['db', 'export', 'no-such-db', '--out', join(dir, 'none.ndjson')])
      expect(r.code).toBe(4)
      expect(existsSync(join(dir, 'none.ndjson'))).toBe(false)
      expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([])
    })

    it('push: diff, dry-run, refuses without a terminal or --yes, refuses data loss without --force; pull', async () => {
      const file = join(dir, 'shop.json')
      const shop = {name: 'Shop', code: `shop-${mode}`, schema: {tables: {products: {fields: {sku: 'string', stock: 'integer'}, indexed_fields: ['sku']}}}, public_methods: {list: true}}
      writeFileSync(file, JSON.stringify(shop))
      let r = await run(['db', 'push', file, '--dry-run'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(`+ database shop-${mode} (new)`)
      expect(r.stdout).toContain('+ table products')
      expect(r.stdout).toContain('+ field products.sku (string)')
      expect(r.stdout).toContain('+ index products.sku → idx_str_1')
      expect(r.stdout).toContain('+ public method list')
      expect((await run(['db', 'get', `shop-${mode}`])).code).toBe(4)
      r = await run(['db', 'push', file])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('confirmation needs a terminal')
      expect((await run(['db', 'get', `shop-${mode}`])).code).toBe(4)
      r = await run(['db', 'push', file, '--yes', '--json'])
      expect(r.code, r.stdout).toBe(0)
      expect(r.json).toMatchObject({applied: true, databases: [{create: true}]})
      r = await run(['db', 'push', file, '--yes'])
      expect(r.stdout).toContain('up to date')
      await run(['db', 'records', 'create', `shop-${mode}`, '{"sku":"A","stock":3}', '--table', 'products'])
      const next = {...shop, public_methods: {list: true, get: true}, schema: {tables: {
        products: {fields: {sku: 'string', stock: 'number', title: 'text'}, indexed_fields: ['sku', 'stock']},
        orders: {fields: {number: 'integer'}},
      }}}
      writeFileSync(file, JSON.stringify(next))
      r = await run(['db', 'push', file, '--dry-run', '--json'])
      const kinds = r.json.databases[0].changes.map((c: any) => c.kind).sort()
      expect(kinds).toEqual(['field_added', 'field_added', 'field_retyped', 'index_added', 'method_added', 'table_added'])
      r = await run(['db', 'push', file, '--yes'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain('~ field products.stock: integer → number')
      // Dropping a field that holds data needs --force; one without data does not.
      const drop = {...next, schema: {tables: {products: {fields: {sku: 'string'}, indexed_fields: ['sku']}}}}
      writeFileSync(file, JSON.stringify(drop))
      r = await run(['db', 'push', file, '--yes'])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('refusing to drop data')
      expect(r.stderr).toContain('products.stock')
      expect(r.stderr).not.toContain('products.title')
      expect((await run(['db', 'get', `shop-${mode}`, '--json'])).json.schema.tables.orders).toBeDefined()
      r = await run(['db', 'push', file, '--yes', '--force'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain('- table orders')
      expect(r.stdout).toContain('- field products.stock (number)')
      const pulled = join(dir, 'pulled.json')
      r = await run(['db', 'pull', `shop-${mode}`, '--out', pulled])
      expect(r.code).toBe(0)
      expect(JSON.parse(readFileSync(pulled, 'utf8'))).toMatchObject({name: 'Shop', code: `shop-${mode}`, schema: drop.schema, public_methods: {list: true, get: true}})
      r = await run(['db', 'push', pulled, '--dry-run'])
      expect(r.stdout).toContain('up to date')
      r = await run(['db', 'push', join(dir, 'missing.json')])
      expect(r.code).toBe(2)
    })
  })
}

describe('svc db push on a terminal', () => {
  it('asks to confirm: n leaves the backend alone, y applies', async () => {
    const dir = tempDir()
    const file = join(dir, 'tty.json')
    writeFileSync(file, JSON.stringify({name: 'Tty', code: 'tty', schema: {fields: {a: 'string'}}}))
    let r = await svcTty(['db', 'push', file, '--data', data], 'n\r')
    expect(r.out).toContain('Apply this change')
    expect(r.out).toContain('Nothing changed.')
    expect((await svc(['db', 'get', 'tty', '--data', data])).code).toBe(4)
    r = await svcTty(['db', 'push', file, '--data', data], 'y\r')
    expect(r.out).toContain('Created tty')
    expect((await svc(['db', 'get', 'tty', '--data', data])).code).toBe(0)
  })
})
