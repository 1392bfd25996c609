// The typed client's published types (package export `svc` → dist/sdk.d.ts) compile in a fresh
// TypeScript project under `strict`, without `skipLibCheck` and without @types/node (issue 25 item
// 11: TS2536 in dist/core/contract/apps.d.ts, and `node:async_hooks` in flows.d.ts). The project
// has nothing but `svc` in its node_modules (a link to this package, whose own dependencies resolve
// from where they are installed, as npm lays them out); it is checked with this repo's tsc.
import {execFile} from 'node:child_process'
import {mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const run = promisify(execFile)

const SCRIPT = `import {createClient, isSvcError, SvcError, type AppView, type DbView} from 'svc'

const svc = createClient({url: 'http://127.0.0.1:4000', token: 'secret'})
const me = await svc.getMe()
const dbs: DbView[] = await svc.listDbs()
const app: AppView = await svc.call('replaceInApp', {params: {id: 'x'}, body: {field: 'source_code', old_string: 'a', new_string: 'b'}})
try {
  await svc.deleteDb({params: {id: dbs[0]!.id}})
} catch (error) {
  if (isSvcError(error) && error instanceof SvcError) console.log(error.status, error.details)
}
console.log(me.login, app.url_code)

// The types say something: these are errors.
// @ts-expect-error an operation that does not exist
await svc.call('dropEverything')
// @ts-expect-error a database's name is a string
await svc.createDb({body: {db: {name: 5}}})
// @ts-expect-error the app's id is a path parameter
await svc.getApp({})
// @ts-expect-error login is a string
const n: number = me.login
console.log(n)
`

it('a strict project with only svc installed type-checks `import {createClient} from \'svc\'`, without @types/node', async () => {
  const project = tempDir('svc-sdk-types-')
  mkdirSync(join(project, 'node_modules'))
  symlinkSync(ROOT, join(project, 'node_modules', 'svc'), 'dir')
  writeFileSync(join(project, 'package.json'), JSON.stringify({name: 'uses-svc', private: true, type: 'module', dependencies: {svc: '*'}}))
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, lib: ['ES2022', 'DOM']},
    files: ['index.ts'],
  }))
  writeFileSync(join(project, 'index.ts'), SCRIPT)
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const result = await run(process.execPath, [tsc, '-p', project, '--listFiles'], {cwd: project, maxBuffer: 64 * 1024 * 1024})
    .then(({stdout}) => ({code: 0, stdout}), (error: {code: number; stdout: string}) => ({code: error.code, stdout: error.stdout}))
  const errors = result.stdout.split('\n').filter((line) => /error TS\d+/.test(line))
  expect(errors).toEqual([])
  expect(result.code).toBe(0)
  const files = result.stdout.split('\n')
  expect(files.some((f) => f.endsWith('/dist/sdk.d.ts'))).toBe(true)
  expect(files.filter((f) => f.includes('/@types/node/'))).toEqual([])
}, 180_000)
