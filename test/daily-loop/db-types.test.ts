import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

/**
 * Issue 39, "Types from db schemas": `svc db types`. The generated file type-checks under --strict
 * against svc-api-client in test/daily-loop/typed-client.test.ts; here the CLI's output and exit codes.
 */
describe('svc db types', () => {
  const data = tempDir()
  const files = tempDir()
  const out = join(files, 'db-types.ts')

  beforeAll(async () => {
    let r = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
    r = await svc(['db', 'create', 'Guest book', '--code', 'guest-book', '--data', data, '--json',
      '--schema', JSON.stringify({fields: {message: {type: 'text', required: true}, stars: 'integer', posted: 'datetime'}}),
      '--public-methods', JSON.stringify({
        list: {scope_by: 'visitor'},
        create: {allowed_fields: ['message', 'stars', 'visitor'], required_fields: ['message'], default_values: {stars: 3}, auto_fields: {visitor: '{cookie_key}'}},
        search: {allowed_params: ['q', 'limit']},
      })])
    expect(r.code, r.stderr).toBe(0)
    r = await svc(['db', 'create', 'Shop', '--code', 'shop', '--data', data, '--json',
      '--schema', JSON.stringify({tables: {items: {fields: {title: {type: 'string', required: true}, price: 'number'}}, lines: {fields: {qty: 'integer'}}}})])
    expect(r.code, r.stderr).toBe(0)
  })

  it('prints the types of every db: required vs optional, auto_fields out of what a create takes, public inputs and answers', async () => {
    const r = await svc(['db', 'types', '--data', data])
    expect(r.code, r.stderr).toBe(0)
    const text = r.stdout
    expect(text).toContain('from the schemas of: guest-book, shop.')
    expect(text).toContain("import type {SvcClient} from 'svc-api-client'")
    // Guest book: message required, stars optional and nullable, visitor filled by the server.
    const guest = text.slice(text.indexOf('export namespace GuestBook {'), text.indexOf('export namespace Shop {'))
    const block = (name: string) => guest.slice(guest.indexOf(`export type ${name} = {`), guest.indexOf('\n  }', guest.indexOf(`export type ${name} = {`)))
    expect(block('Data')).toMatch(/\n\s+message: string\n/)
    expect(block('Data')).toMatch(/\n\s+stars\?: number \| null\n/)
    expect(block('Data')).toMatch(/\n\s+visitor\?: string($|\n)/)
    expect(block('Insert')).toMatch(/\n\s+message: string\n/)
    expect(block('Insert')).not.toContain('visitor')
    expect(block('Update')).toMatch(/\n\s+message\?: string\n/)
    const create = guest.slice(guest.indexOf('export type CreateInput'), guest.indexOf('export type SearchParams'))
    expect(create).toMatch(/\n\s+message: string\n/)
    expect(create).toMatch(/\n\s+stars\?: number \| null\n/)
    expect(create).not.toContain('visitor')
    expect(guest).toContain('export type SearchParams = { q?: string; limit?: number }')
    expect(guest).toContain('export interface Answers { list: PublicRecord<Data>[]; create: PublicRecord<Data>; search: PublicRecord<Data>[] }')
    // Shop: one namespace per table.
    expect(text).toContain('export type TableName = "items" | "lines"')
    expect(text).toMatch(/export namespace Items \{[\s\S]*?title: string\n[\s\S]*?price\?: number \| null/)
    expect(text).toContain('export function records<C extends keyof Dbs & string>(svc: RecordCalls, code: C)')
  })

  it('CODE… picks dbs; --out writes; --check exits 0 when current and 1 when stale or missing', async () => {
    let r = await svc(['db', 'types', 'shop', '--out', out, '--data', data])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`wrote ${out}: types of shop`)
    expect(readFileSync(out, 'utf8')).not.toContain('GuestBook')
    r = await svc(['db', 'types', 'shop', '--out', out, '--check', '--data', data])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('is up to date (1 database)')

    // A db more makes the file of every db stale; the file is left as it was.
    r = await svc(['db', 'types', '--out', out, '--data', data])
    expect(r.code, r.stderr).toBe(0)
    expect((await svc(['db', 'types', '--out', out, '--check', '--data', data])).code).toBe(0)
    const before = readFileSync(out, 'utf8')
    r = await svc(['db', 'create', 'Notes', '--code', 'notes', '--schema', JSON.stringify({fields: {body: 'string'}}), '--data', data])
    expect(r.code, r.stderr).toBe(0)
    r = await svc(['db', 'types', '--out', out, '--check', '--data', data])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${out} is stale`)
    expect(r.stderr).toContain(`svc db types --out ${out}`)
    expect(readFileSync(out, 'utf8')).toBe(before)
    r = await svc(['db', 'types', '--out', out, '--data', data])
    expect(readFileSync(out, 'utf8')).toContain('body?: string | null')
    r = await svc(['db', 'types', '--out', out, '--check', '--data', data])
    expect(r.code).toBe(0)

    writeFileSync(out, readFileSync(out, 'utf8') + '// edited\n')
    expect((await svc(['db', 'types', '--out', out, '--check', '--data', data])).code).toBe(1)
    r = await svc(['db', 'types', '--out', join(files, 'missing.ts'), '--check', '--data', data, '--json'])
    expect(r.code).toBe(1)
    expect(r.json).toMatchObject({stale: true, dbs: ['guest-book', 'notes', 'shop']})
  })

  it('bad use: --check without --out is a usage error (2); an unknown code is not found (4)', async () => {
    let r = await svc(['db', 'types', '--check', '--data', data])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--out FILE')
    r = await svc(['db', 'types', 'nope', '--data', data])
    expect(r.code).toBe(4)
    expect(r.stderr).toContain('no database with code nope')
  })
})
