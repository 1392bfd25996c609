import {spawn} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {BIN, cliEnv, type CliResult, svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

/** Runs the binary under `script` so it has a terminal, typing `keys`. */
function svcTty(args: string[], keys: string): Promise<{code: number; out: string}> {
  return new Promise((resolve, reject) => {
    const env = cliEnv({CI: undefined})
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

// Each call runs the real binary (~0.5-3 s on a busy 2-core machine), so these tests prove the CLI
// surface (arguments, flags, output, --json, exit codes) with as few calls as they can: every command
// runs on both backends; a check that does not depend on the backend (local usage errors, output
// format) runs on one. What the API does with a request is proved by the HTTP scenarios
// (test/dbs/*.test.ts). The two backends' flows are independent and run side by side.
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
  // concurrent: the two backends' suites run side by side; sequential: the steps of one run in order.
  describe.concurrent(`svc db (${mode})`, () => describe.sequential('steps', () => {
    const target = () => (mode === 'embedded' ? ['--data', data] : ['--url', server!.url, '--token', token])
    const run = (args: string[], input?: string) => svc([...args, ...target()], {input})
    const remote = mode === 'remote'
    const code = `people-${mode}`
    const dir = tempDir()

    it('create, list, get, replace', async () => {
      let r = await run(['db', 'create', 'People', '--code', code, '--schema', '{"fields":{"name":{"type":"string","required":true},"age":"integer","city":"string"},"indexed_fields":["name","age"]}',
        '--public-methods', '{"create":{"auto_fields":{"ip":"{ip}"}},"list":true}', '--json'])
      expect(r.code, r.stderr + r.stdout).toBe(0)
      expect(r.json).toMatchObject({code, records_count: 0, public_methods: {list: true}})
      r = await run(['db', 'list'])
      expect(r.stdout).toContain(code)
      r = await run(['db', 'get', code])
      expect(r.stdout).toContain('"indexed_fields"')
      r = await run(['db', 'replace', code, '--field', 'schema', '--old', '"city": "string"', '--new', '"city": "text"', '--json'])
      expect(r.code, r.stdout).toBe(0)
      expect(r.json.schema.fields.city).toBe('text')
      if (!remote) {
        r = await run(['db', 'create', 'Bad', '--schema', '{nope'])
        expect(r.code).toBe(2)
      }
    })

    it('records create, update, list, delete; search flags; validation exits 5', async () => {
      let r = await run(['db', 'records', 'create', code, '{"name":"Ada","age":"36","city":"Berlin"}', '--json'])
      expect(r.code, r.stdout + r.stderr).toBe(0)
      expect(r.json.data).toEqual({name: 'Ada', age: 36, city: 'Berlin'})
      const id = r.json.id
      if (!remote) {
        r = await run(['db', 'records', 'create', code, '{"age":"old"}'])
        expect(r.code).toBe(5)
        expect(r.stderr).toContain('name: is required')
        expect(r.stderr).toContain('age: must be an integer')
      }
      r = await run(['db', 'records', 'update', code, String(id), '{"age":37}', '--json'])
      expect(r.json.data).toEqual({name: 'Ada', age: 37, city: 'Berlin'})
      r = await run(['db', 'records', 'create', code, '{"name":"Bob","age":20,"city":"Paris"}'])
      expect(r.code).toBe(0)
      r = await run(['db', 'records', 'list', code, '--limit', '1'])
      expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^\d+\t-\t\{"name":"Bob","age":20,"city":"Paris"\}$/)])
      // Every search flag reaches the API: q, filter (exact and pattern), sort, fields, limit.
      r = await run(['db', 'search', code, '--q', 'a', '--filter', 'age=37', '--filter', 'city=BER*', '--sort', '-age', '--fields', 'name', '--limit', '5', '--json'])
      expect(r.json).toEqual([{name: 'Ada', id, created_at: expect.any(String), updated_at: expect.any(String)}])
      r = await run(['db', 'records', 'delete', code, String(id), '--yes'])
      expect(r.code).toBe(0)
      if (remote) {
        r = await run(['db', 'records', 'delete', code, String(id), '--yes'])
        expect(r.code).toBe(4)
      }
    })

    it('call a public method', async () => {
      let r = await run(['db', 'call', code, 'create', '{"name":"Pub","age":1}', '--json'])
      expect(r.code, r.stdout + r.stderr).toBe(0)
      expect(r.json.data).toMatchObject({name: 'Pub', ip: '127.0.0.1'})
      if (remote) {
        r = await run(['db', 'call', code, 'list', '--param', 'limit=1', '--json'])
        expect(r.json.map((x: any) => x.data.name)).toEqual(['Pub'])
        r = await run(['db', 'call', code, 'delete', '--id', '999999', '--json'])
        expect(r.code).toBe(4)
      }
    })

    it('export writes NDJSON atomically; import reads it back in batches; delete', async () => {
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
      expect(r.json).toMatchObject({imported: 9})
      if (remote) {
        r = await run(['db', 'import', `${code}-copy`, '-', '--json'], '{"name":"stdin","age":"4"}\n{"name":"stdin","age":"x"}\n')
        expect(r.code).toBe(5)
        // The whole input is checked first: the bad line is named and nothing is imported.
        expect(r.json.error).toMatchObject({code: 'validation', details: {records: ['line 2: age must be an integer']}})
      } else {
        r = await run(['db', 'import', `${code}-copy`, '-', '--json'], '{"name":"stdin","age":"4"}\nnot json\n')
        expect(r.code).toBe(2)
      }
      // Nothing of the refused import was written: still 9.
      r = await run(['db', 'export', `${code}-copy`, '--out', '-'])
      expect(r.stdout.trim().split('\n')).toHaveLength(9)
      if (!remote) {
        r = await run(['db', 'export', 'no-such-db', '--out', join(dir, 'none.ndjson')])
        expect(r.code).toBe(4)
        expect(existsSync(join(dir, 'none.ndjson'))).toBe(false)
        expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([])
      }
      r = await run(['db', 'delete', `${code}-copy`, '--yes'])
      expect(r.code, r.stderr).toBe(0)
    })

    it('push: diff, dry-run, refuses without a terminal or --yes, refuses data loss and invalid records without --force; pull', async () => {
      const file = join(dir, 'shop.json')
      const shop = {name: 'Shop', code: `shop-${mode}`, schema: {tables: {products: {fields: {sku: 'string', stock: 'string', price: 'string'}, indexed_fields: ['sku']}}}, public_methods: {list: true}}
      writeFileSync(file, JSON.stringify(shop))
      let r: CliResult
      if (remote) {
        r = await run(['db', 'push', file, '--dry-run'])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout).toContain(`+ database shop-${mode} (new)`)
        expect(r.stdout).toContain('+ table products')
        expect(r.stdout).toContain('+ field products.sku (string)')
        expect(r.stdout).toContain('+ index products.sku → idx_str_1')
        expect(r.stdout).toContain('+ public method list')
      } else {
        r = await run(['db', 'push', file])
        expect(r.code).toBe(2)
        expect(r.stderr).toContain('confirmation needs a terminal')
      }
      // create: true proves neither the dry run nor the refused push created it.
      r = await run(['db', 'push', file, '--yes', '--json'])
      expect(r.code, r.stdout).toBe(0)
      expect(r.json).toMatchObject({applied: true, databases: [{create: true, invalid_records: {count: 0, first: []}}]})
      const products = [
        {sku: 'A', stock: '5', price: '9.5'}, {sku: 'B', stock: 'lots', price: '1'}, {stock: '1', price: '2'},
        ...[1, 2, 3, 4, 5].map((n) => ({sku: `C${n}`, stock: 'x', price: '3'})), {sku: 'D', stock: '2', price: '4', color: 'red'},
      ]
      r = await run(['db', 'import', `shop-${mode}`, '-'], products.map((data) => JSON.stringify({table_name: 'products', data})).join('\n'))
      expect(r.code, r.stderr).toBe(0)
      // sku becomes required, stock and price become numbers, color (free-form so far) an integer:
      // B, the record without sku, C1-C5 and D would fail; A and every price convert.
      const next = {...shop, public_methods: {list: true, get: true}, schema: {tables: {
        products: {fields: {sku: {type: 'string', required: true}, stock: 'integer', price: 'number', title: 'text', color: 'integer'}, indexed_fields: ['sku', 'stock']},
        orders: {fields: {number: 'integer'}},
      }}}
      writeFileSync(file, JSON.stringify(next))
      r = await run(['db', 'push', file, '--dry-run'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain('~ field products.stock: string → integer')
      expect(r.stdout).toContain('~ field products.sku: now required')
      expect(r.stdout).toContain('! 8 record(s) would fail validation under the new schema:')
      expect(r.stdout).toMatch(/#\d+ products\.stock: must be an integer\n\s+#\d+ products\.sku: is required\n/)
      expect(r.stdout).toContain('... and 3 more record(s)')
      expect(r.stdout).not.toContain('products.price: must')
      if (remote) {
        r = await run(['db', 'push', file, '--dry-run', '--json'])
        const db = r.json.databases[0]
        expect(db.changes.map((c: any) => c.kind).sort()).toEqual([
          'field_added', 'field_added', 'field_added', 'field_required', 'field_retyped', 'field_retyped', 'index_added', 'method_added', 'table_added',
        ])
        expect(db.invalid_records.count).toBe(8)
        expect(db.invalid_records.first.map((f: any) => [f.table_name, f.field, f.message])).toEqual([
          ['products', 'stock', 'must be an integer'], ['products', 'sku', 'is required'],
          ['products', 'stock', 'must be an integer'], ['products', 'stock', 'must be an integer'], ['products', 'stock', 'must be an integer'],
        ])
        const ids = db.invalid_records.first.map((f: any) => f.id)
        expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b))
      }
      const refusal = (prefix: string) => new RegExp(`${prefix}refusing to leave records invalid: shop-${mode}: 8 record\\(s\\) would fail validation \\(#\\d+ products\\.stock: must be an integer`)
      if (remote) {
        r = await run(['db', 'push', file, '--yes', '--json'])
        expect(r.code).toBe(1)
        expect(r.json.error).toMatchObject({code: 'conflict', message: expect.stringMatching(refusal('^')), details: {databases: [{code: `shop-${mode}`, invalid_records: {count: 8}}]}})
      } else {
        r = await run(['db', 'push', file, '--yes'])
        expect(r.code).toBe(1)
        expect(r.stderr).toMatch(refusal('(^|\n)Error: '))
        expect(r.stderr).not.toContain('refusing to drop data')
        expect(r.stderr).toContain('Try: check the diff, then fix the records or add --force to apply it anyway')
      }
      r = await run(['db', 'push', file, '--yes', '--force', '--json'])
      expect(r.code, r.stdout).toBe(0)
      // All nine changes still pending: the refused push applied nothing.
      expect(r.json).toMatchObject({applied: true, databases: [{create: false, invalid_records: {count: 8}}]})
      expect(r.json.databases[0].changes).toHaveLength(9)
      // Dropping a field that holds data needs --force; one without data does not.
      const drop = {...next, schema: {tables: {products: {fields: {sku: 'string', color: 'integer'}, indexed_fields: ['sku']}}}}
      if (!remote) {
        writeFileSync(file, JSON.stringify(drop))
        r = await run(['db', 'push', file, '--yes'])
        expect(r.code).toBe(1)
        expect(r.stderr).toContain('refusing to drop data')
        expect(r.stderr).toContain('products.stock')
        expect(r.stderr).not.toContain('products.title')
        expect(r.stderr).not.toContain('records invalid')
        r = await run(['db', 'push', file, '--yes', '--force'])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout).toContain('- table orders')
        expect(r.stdout).toContain('- field products.stock (integer)')
      }
      const pulled = join(dir, 'pulled.json')
      r = await run(['db', 'pull', `shop-${mode}`, '--out', pulled])
      expect(r.code).toBe(0)
      expect(JSON.parse(readFileSync(pulled, 'utf8'))).toMatchObject({name: 'Shop', code: `shop-${mode}`, schema: remote ? next.schema : drop.schema, public_methods: {list: true, get: true}})
      if (remote) {
        r = await run(['db', 'push', pulled, '--dry-run'])
        expect(r.stdout).toContain('up to date')
      } else {
        r = await run(['db', 'push', join(dir, 'missing.json')])
        expect(r.code).toBe(2)
      }
    })
  }))
}

describe('svc db push on a terminal', () => {
  it('asks to confirm: n leaves the backend alone, y applies', async () => {
    const dir = tempDir()
    const file = join(dir, 'tty.json')
    writeFileSync(file, JSON.stringify({name: 'Tty', code: 'tty', schema: {fields: {a: 'string'}}}))
    let r = await svcTty(['db', 'push', file, '--data', data], 'n\r')
    expect(r.out).toContain('Apply this change')
    expect(r.out).toContain('Nothing changed.')
    // "+ database tty (new)" again: the answer n created nothing.
    r = await svcTty(['db', 'push', file, '--data', data], 'y\r')
    expect(r.out).toContain('+ database tty (new)')
    expect(r.out).toContain('Created tty')
  })
})
