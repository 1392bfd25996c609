import {execFileSync} from 'node:child_process'
import {existsSync, readdirSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, svcServe, type ServeProcess} from '../helpers/cli.js'
import {createWorld, tempDir, type World} from '../helpers/world.js'

/**
 * Issue 39, item 4: the typed client installs alone. A strict TypeScript project (`--strict`, no
 * skipLibCheck) installs svc-api-client from its `npm pack` tarball (offline: it has no
 * dependencies), generates types with openapi-typescript from `svc openapi`, type-checks, and calls
 * a served svc with openapi-fetch and with the client. typescript, openapi-typescript and
 * openapi-fetch come from the repo's node_modules (linked), so nothing is downloaded.
 */
const CLIENT = join(ROOT, 'packages', 'client')
const linked = ['typescript', 'openapi-typescript', 'openapi-fetch', 'openapi-typescript-helpers']

const MAIN = `
import createFetchClient from 'openapi-fetch'
import type {paths} from './api.js'
import {createClient, isSvcError, SvcError, type CallOutput} from 'svc-api-client'
import {records, type People} from './db-types.js'

declare const process: {env: Record<string, string | undefined>}
const url = process.env.SVC_URL!
const token = process.env.SVC_TOKEN!
const dbId = process.env.DB_ID!

// openapi-fetch over the generated paths: after \`if (error) throw\`, data is the success body.
const api = createFetchClient<paths>({baseUrl: url, headers: {authorization: \`Bearer \${token}\`}})
const created = await api.POST('/svc/dbs/{db_id}/records.json', {params: {path: {db_id: dbId}}, body: {record: {data: {name: 'Ann', city: 'Berlin'}}}})
if (created.error) throw new Error(JSON.stringify(created.error))
const createdId: number = created.data.id
const found = await api.GET('/svc/dbs/{db_id}/search.json', {params: {path: {db_id: dbId}, query: {q: 'Ann', limit: 5, offset: 0, filter: {city: 'Berlin'}}}})
if (found.error) throw new Error(JSON.stringify(found.error))
const foundIds: number[] = found.data.map((r) => r.id)
const none = await api.GET('/svc/dbs/{db_id}/search.json', {params: {path: {db_id: dbId}, query: {filter: {city: 'Paris'}}}})
if (none.error) throw new Error(JSON.stringify(none.error))
const {data: meData, error: meError} = await api.GET('/svc/me.json')
if (meError) throw new Error(JSON.stringify(meError))
const login: string = meData.login
// @ts-expect-error limit is an integer, not a string
void api.GET('/svc/dbs/{db_id}/records.json', {params: {path: {db_id: dbId}, query: {limit: 'five'}}})

// The client package: one method per operation, errors as SvcError.
const svc = createClient({url, token})
const rows = await svc.searchRecords({params: {db_id: Number(dbId)}, query: {q: 'Ann', limit: 5, filter: {city: 'Berlin'}}})
const rowIds: number[] = rows.map((r) => r.id)
const db: CallOutput<'getDb'> = await svc.getDb({params: {id: dbId}})
const dbName: string = db.name
const record = await svc.call('getRecord', {params: {db_id: dbId, id: createdId}})
const recordData: Record<string, unknown> = record.data
let status = 0
try {
  await svc.getPrompt({params: {id: '00000000-0000-4000-8000-000000000000'}})
} catch (error) {
  if (isSvcError(error) && error instanceof SvcError) status = error.status
}
if (false as boolean) {
  // @ts-expect-error getDb needs its path parameter
  await svc.getDb()
  // @ts-expect-error limit is an integer
  await svc.listRecords({params: {db_id: 1}, query: {limit: 'five'}})
}
// \`svc db types\`: record calls typed by the db's schema.
const people = records(svc, 'people')
const cy = await people.create({name: 'Cy', city: 'Rome'})
const cyName: string = cy.data.name
const cyCity: string | null | undefined = cy.data.city
const listed = await people.list({limit: 10})
const updated = await people.update(cy.id, {city: null})
const insert: People.Insert = {name: 'Di'}
if (false as boolean) {
  // @ts-expect-error name is required by the schema
  await people.create({city: 'Oslo'})
  // @ts-expect-error city is a string
  await people.update(1, {city: 5})
  // @ts-expect-error no db of that code
  records(svc, 'nope')
}
console.log(JSON.stringify({createdId, foundIds, none: none.data.length, login, rowIds, dbName, name: recordData.name, status,
  typed: {cyName, cyCity, listed: listed.length, updatedCity: updated.data.city ?? null, insert: insert.name}}))
`

describe('svc-api-client: a strict TypeScript project installs it alone and calls a served svc', () => {
  let world: World
  let server: ServeProcess
  let dbId = 0
  const project = tempDir('svc-client-project-')

  beforeAll(async () => {
    world = await createWorld()
    server = await svcServe(world.dataDir, world.databaseUrl ? ['--database-url', world.databaseUrl] : [])
    const res = await fetch(`${server.url}/svc/dbs.json`, {
      method: 'POST', headers: {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'},
      body: JSON.stringify({db: {name: 'People', code: 'people', schema: {fields: {name: {type: 'string', required: true}, city: 'string'}, indexed_fields: ['name', 'city']}}}),
    })
    expect(res.status).toBe(201)
    dbId = (await res.json()).id
  }, 180_000)
  afterAll(async () => {
    await server?.stop()
    await world?.close()
  })

  it('packs with no dependencies, installs offline from the tarball, generates types (openapi-typescript, svc db types), type-checks under --strict and runs', () => {
    expect(existsSync(join(CLIENT, 'dist')), 'packages/client is built by npm run build').toBe(true)
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', project], {cwd: CLIENT, encoding: 'utf8'}))[0]
    expect(packed.name).toBe('svc-api-client')
    // Nothing of the server: no store, no http, no zod.
    const files = (packed.files as {path: string}[]).map((f) => f.path)
    expect(files.some((f) => /\/(store|http|commands)\//.test(f) || /zod/.test(f))).toBe(false)
    const pkg = JSON.parse(execFileSync('tar', ['-xzOf', join(project, packed.filename), 'package/package.json'], {encoding: 'utf8'}))
    expect(pkg.dependencies ?? {}).toEqual({})
    expect(pkg.peerDependencies ?? {}).toEqual({})

    writeFileSync(join(project, 'package.json'), JSON.stringify({name: 'client-project', private: true, type: 'module'}))
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${packed.filename}`], {cwd: project, encoding: 'utf8'})
    const installed = join(project, 'node_modules', 'svc-api-client')
    expect(readdirSync(join(project, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['svc-api-client'])
    const size = du(installed)
    expect(size).toBeLessThan(2_000_000)
    for (const name of linked) symlinkSync(join(ROOT, 'node_modules', name), join(project, 'node_modules', name), 'dir')

    execFileSync(process.execPath, [BIN, 'openapi', '--output', join(project, 'openapi.json')], {cwd: project})
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), 'openapi.json', '-o', 'api.d.ts'], {cwd: project, stdio: 'pipe'})
    execFileSync(process.execPath, [BIN, 'db', 'types', '--url', server.url, '--token', world.users.admin!.token, '--out', join(project, 'db-types.ts')], {cwd: project})
    writeFileSync(join(project, 'main.ts'), MAIN)
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], strict: true, types: [], outDir: 'out'},
      files: ['main.ts', 'db-types.ts'],
    }))
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    try {
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], {cwd: project, encoding: 'utf8'})
    } catch (error) {
      throw new Error(`tsc --strict failed:\n${(error as {stdout?: string}).stdout}`)
    }
    const out = execFileSync(process.execPath, [join(project, 'out', 'main.js')], {
      cwd: project, encoding: 'utf8', env: {...process.env, SVC_URL: server.url, SVC_TOKEN: world.users.admin!.token, DB_ID: String(dbId)},
    })
    const result = JSON.parse(out)
    expect(result).toEqual({
      createdId: expect.any(Number), foundIds: [result.createdId], none: 0, login: 'admin', rowIds: [result.createdId], dbName: 'People', name: 'Ann', status: 404,
      typed: {cyName: 'Cy', cyCity: 'Rome', listed: 2, updatedCity: null, insert: 'Di'},
    })
  }, 180_000)
})

function du(path: string): number {
  const st = statSync(path)
  if (!st.isDirectory()) return st.size
  return readdirSync(path).reduce((n, name) => n + du(join(path, name)), 0)
}
