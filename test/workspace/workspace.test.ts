// Workspace as code through the real binary: init → push → pull round trip, dry-run, prune,
// problems in files, and `svc dev` applying a saved prompt. Embedded and against `svc serve`.
import {spawn} from 'node:child_process'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cliEnv, svc, svcServe, type ServeProcess, killOnExit} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const RESOURCE_FILES = [
  'apps/hello/App.svelte', 'apps/hello/app.json', 'connectors/weather.json', 'dashboards/overview.json', 'dbs/contacts.json',
  'flows/heat_check.json', 'prompts/welcome.md',
]
const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8')

describe('workspace on the embedded backend', () => {
  const data = tempDir()
  const ws = join(tempDir(), 'ws')
  const target = ['--data', data]

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
  })

  it('init → push → pull round trip; a second push has nothing to do', async () => {
    const init = await svc(['init', ws, '--json'])
    expect(init.code, init.stderr).toBe(0)
    expect(read(ws, '.gitignore')).toContain('.svc-secrets.json')
    expect((await svc(['init', ws])).code).toBe(2)

    const push = await svc(['push', '--dir', ws, '--yes', ...target])
    expect(push.code, push.stderr).toBe(0)
    expect(push.stdout).toContain('+ create prompt prompts/welcome.md')
    expect(push.stdout).toContain('+++ folder/prompts/welcome.md')
    expect(push.stdout).toContain('6 to create, 0 to change, 0 to delete')
    expect(push.stdout).toContain('Done: 6 change(s) applied.')
    const prompt = await svc(['prompt', 'render', 'welcome', '--var', 'name=Ada', ...target])
    expect(prompt.stdout).toContain('warm welcome for Ada')

    const again = await svc(['push', '--dir', ws, '--json', ...target])
    expect(again.json).toMatchObject({changes: [], applied: [], unchanged: 6})

    const pulled = join(tempDir(), 'pulled')
    const pull = await svc(['pull', '--dir', pulled, '--json', ...target])
    expect(pull.code, pull.stderr).toBe(0)
    expect(pull.json.written.sort()).toEqual(RESOURCE_FILES)
    for (const path of RESOURCE_FILES) expect(read(pulled, path), path).toBe(read(ws, path))
    const fromPulled = await svc(['push', '--dir', pulled, '--json', ...target])
    expect(fromPulled.json.changes).toEqual([])
  }, 120_000)

  it('--dry-run shows the diff and changes nothing; without a terminal or --yes nothing is applied', async () => {
    const file = join(ws, 'prompts/welcome.md')
    writeFileSync(file, read(ws, 'prompts/welcome.md').replace('short, warm welcome', 'long, formal welcome'))
    const dry = await svc(['push', '--dir', ws, '--dry-run', ...target])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain('~ change prompt prompts/welcome.md')
    expect(dry.stdout).toMatch(/^-Write a short, warm welcome/m)
    expect(dry.stdout).toMatch(/^\+Write a long, formal welcome/m)
    const refused = await svc(['push', '--dir', ws, ...target])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('confirmation needs a terminal')
    const still = await svc(['prompt', 'render', 'welcome', ...target])
    expect(still.stdout).toContain('short, warm welcome')

    const applied = await svc(['push', '--dir', ws, '--yes', '--json', ...target])
    expect(applied.json.applied).toEqual([{action: 'update', kind: 'prompt', key: 'prompts/welcome.md'}])
    expect((await svc(['prompt', 'render', 'welcome', ...target])).stdout).toContain('long, formal welcome')
  }, 120_000)

  it('deletes only with --prune', async () => {
    rmSync(join(ws, 'dbs/contacts.json'))
    const kept = await svc(['push', '--dir', ws, '--yes', '--json', ...target])
    expect(kept.json.kept).toEqual(['dbs/contacts.json'])
    expect(kept.json.applied).toEqual([])
    expect((await svc(['db', 'get', 'contacts', '--json', ...target])).code).toBe(0)
    const pruned = await svc(['push', '--dir', ws, '--yes', '--prune', '--json', ...target])
    expect(pruned.json.applied).toEqual([{action: 'delete', kind: 'db', key: 'dbs/contacts.json'}])
    expect((await svc(['db', 'get', 'contacts', ...target])).code).toBe(4)
  }, 120_000)

  it('names every problem of the folder and applies nothing; secrets are refused in files', async () => {
    const bad = join(tempDir(), 'bad')
    expect((await svc(['init', bad])).code).toBe(0)
    writeFileSync(join(bad, 'dbs/broken.json'), '{"name": ')
    writeFileSync(join(bad, 'connectors/leaky.json'), JSON.stringify({url: 'https://example.com', secret_token: 's3cret'}))
    const r = await svc(['push', '--dir', bad, '--yes', ...target])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('dbs/broken.json: not valid JSON')
    expect(r.stderr).toContain('connectors/leaky.json: secrets never go in workspace files')
    expect(r.stderr).not.toContain('s3cret')
  }, 120_000)

  it('svc dev applies a saved prompt and prints one line with its time', async () => {
    const child = killOnExit(spawn(process.execPath, [BIN, 'dev', '--dir', ws, '--no-app-dev', ...target], {env: cliEnv({SVC_DATA: '', SVC_URL: ''})}))
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const waitFor = async (re: RegExp) => {
      for (let i = 0; i < 600 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 100))
      expect(out).toMatch(re)
    }
    try {
      await waitFor(/watching /)
      writeFileSync(join(ws, 'prompts/welcome.md'), read(ws, 'prompts/welcome.md').replace('long, formal welcome', 'saved-in-dev welcome'))
      await waitFor(/\d\d:\d\d:\d\d changed prompt prompts\/welcome\.md/)
      expect((await svc(['prompt', 'render', 'welcome', ...target])).stdout).toContain('saved-in-dev welcome')
    } finally {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
    }
  }, 120_000)
})

describe('workspace against svc serve', () => {
  let server: ServeProcess
  let target: string[]
  beforeAll(async () => {
    const data = tempDir()
    const admin = (await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])).json
    server = await svcServe(data, ['--quiet'])
    target = ['--url', server.url, '--token', admin.token]
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('push then pull round trip over HTTP', async () => {
    const ws = join(tempDir(), 'ws')
    expect((await svc(['init', ws])).code).toBe(0)
    const push = await svc(['push', '--dir', ws, '--yes', '--json', ...target])
    expect(push.code, push.stderr).toBe(0)
    expect(push.json.applied).toHaveLength(6)
    const pulled = join(tempDir(), 'pulled')
    expect((await svc(['pull', '--dir', pulled, ...target])).code).toBe(0)
    for (const path of RESOURCE_FILES) expect(read(pulled, path), path).toBe(read(ws, path))
    expect((await svc(['push', '--dir', pulled, '--json', ...target])).json.changes).toEqual([])
  }, 120_000)
})
