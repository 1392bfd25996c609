import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, svc, svcProcess, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

/** Both ways `svc prompt render` runs: the lean fast path of bin/run.js and the oclif command. */
const PATHS = [
  {name: 'fast path', env: {}},
  {name: 'oclif', env: {SVC_NO_FASTPATH: '1'}},
] as const

describe('svc prompt: commands on the embedded backend and against svc serve', () => {
  const data = tempDir()
  const files = tempDir()
  let adminToken = ''
  let aliceToken = ''
  let promptId = ''
  let server: ServeProcess | undefined

  beforeAll(async () => {
    let r = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--team', 'red', '--department', 'north', '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
    adminToken = r.json.token
    r = await svc(['admin', 'user', 'add', 'alice', '--team', 'red', '--data', data, '--json'])
    aliceToken = r.json.token
  })

  afterAll(async () => {
    await server?.stop()
  })

  it('svc --help lists the prompt topic; prompt render --help falls back to oclif', async () => {
    expect((await svc(['--help'])).stdout).toContain('prompt')
    const r = await svc(['prompt', 'render', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('--explain')
    expect(r.stdout).toContain('--strict')
  })

  it('create takes flags and --content-file; without a terminal a missing field is the server 422', async () => {
    const file = join(files, 'greet.md')
    writeFileSync(file, 'Hello {{ who }} on {{ date }}\n{% if client_id != blank %}client {{ client_id }}{% endif %}')
    let r = await svc(['prompt', 'create', '--name', 'Greeting', '--code', 'greet', '--kind', 'agent', '--content-file', file,
      '--ai-placeholder', 'Say hi', '--data', data, '--json'])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.json).toMatchObject({code: 'greet', kind: 'agent', scope: 'account', ai_placeholder: 'Say hi'})
    expect(r.json).not.toHaveProperty('token')
    promptId = r.json.id
    r = await svc(['prompt', 'create', '--code', 'x', '--data', data])
    expect(r.code).toBe(5)
    expect(r.stderr).toContain("name: can't be blank")
    expect(r.stderr).toContain("content: can't be blank")
    r = await svc(['prompt', 'create', '--name', 'Greeting', '--code', 'greet', '--content', 'dup', '--data', data, '--json'])
    expect(r.code).toBe(5)
    expect(r.json.error.details).toEqual({code: ['has already been taken']})
  })

  it('create reads the content from stdin with --content-file -', async () => {
    const r = await svc(['prompt', 'create', '--name', 'Extra', '--code', 'greet_extra', '--content-file', '-', '--data', data, '--json'],
      {input: 'Keep it short.\n'})
    expect(r.code, r.stdout).toBe(0)
    expect(r.json.content).toBe('Keep it short.\n')
  })

  it('list, get, raw and update', async () => {
    let r = await svc(['prompt', 'list', '--q', 'gre', '--order-by', 'code_desc', '--data', data, '--json'])
    expect(r.code).toBe(0)
    expect(r.json.map((p: {code: string}) => p.code)).toEqual(['greet_extra', 'greet'])
    r = await svc(['prompt', 'list', '--kind', 'agent', '--data', data])
    expect(r.stdout).toContain(promptId)
    expect(r.stdout).not.toContain('greet_extra')
    r = await svc(['prompt', 'get', promptId, '--data', data])
    expect(r.stdout).toContain('Greeting (greet)')
    expect(r.stdout).toContain('placeholder: Say hi')
    r = await svc(['prompt', 'raw', promptId, '--data', data])
    expect(r.stdout).toBe('Hello {{ who }} on {{ date }}\n{% if client_id != blank %}client {{ client_id }}{% endif %}')
    r = await svc(['prompt', 'update', promptId, '--name', 'Greeting 2', '--data', data, '--json'])
    expect(r.json).toMatchObject({id: promptId, name: 'Greeting 2', kind: 'agent'})
    r = await svc(['prompt', 'update', promptId, '--data', data])
    expect(r.code).toBe(2)
    r = await svc(['prompt', 'get', '00000000-0000-7000-8000-000000000000', '--data', data])
    expect(r.code).toBe(4)
  })

  for (const path of PATHS) {
    describe(`prompt render (${path.name})`, () => {
      const run = (args: string[], input?: string) => svc(['prompt', 'render', ...args], {env: path.env, input})

      it('prints the rendered text and nothing else on stdout', async () => {
        const r = await run(['greet', '--data', data, '--var', 'who=Ada', '--var=client_id=7', '--date', '2026-04-05'])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout).toBe('Hello Ada on 2026-04-05\nclient 7\n\n## Additional instructions\n\nKeep it short.\n')
        expect(r.stderr).toMatch(/^local: .* as admin\n$/)
      })

      it('--explain tells on stderr which layer won and whether _extra applied', async () => {
        const r = await run(['greet', '--explain', '--data', data, '--var', 'who=Ada'])
        expect(r.stderr).toContain(`source: account (prompt ${promptId})`)
        expect(r.stderr).toContain('extra: greet_extra appended (account)')
        expect(r.stderr).toContain('token: placeholder')
        expect(r.stdout.startsWith('Hello Ada on ')).toBe(true)
        const sys = await run(['common_api', '--explain', '--data', data])
        expect(sys.stderr).toContain('source: system (system file common_api)')
        expect(sys.stderr).toContain('extra: none')
      })

      it('--json prints the result with its explain fields', async () => {
        const r = await run(['greet', '--json', '--data', data, '--var', 'who=Bo', '--date', '2026-01-01'])
        expect(r.code).toBe(0)
        expect(r.stderr).toBe('')
        expect(r.json).toEqual({
          code: 'greet', text: 'Hello Bo on 2026-01-01\n\n\n## Additional instructions\n\nKeep it short.\n',
          source: 'account', prompt_id: promptId, extra: 'account', token: 'placeholder', missing: ['client_id'],
        })
      })

      it('an unknown code fails with a clear message and exit 4; a bad date with exit 5', async () => {
        let r = await run(['nope', '--data', data])
        expect(r.code).toBe(4)
        expect(r.stdout).toBe('')
        expect(r.stderr).toContain('Error: no prompt with code "nope"')
        r = await run(['nope', '--json', '--data', data])
        expect(r.json).toMatchObject({error: {code: 'not_found', status: 404}})
        r = await run(['greet', '--date', '2026-13-01', '--data', data])
        expect(r.code).toBe(5)
        expect(r.stderr).toContain('YYYY-MM-DD')
      })

      it('--strict fails on a variable nobody supplied', async () => {
        let r = await run(['greet', '--strict', '--data', data])
        expect(r.code).toBe(5)
        expect(r.stderr).toContain('variable "who" is used by the prompt but was not given')
        r = await run(['greet', '--strict', '--var', 'who=Ada', '--data', data])
        expect(r.code, r.stderr).toBe(0)
      })

      it('embedded: TOKEN is a placeholder, or the --token given when it is the acting user\'s', async () => {
        await svc(['prompt', 'create', '--name', 'T', '--code', 'tok', '--content', '{{ "" | api_block }}', '--data', data])
        let r = await run(['tok', '--data', data])
        expect(r.stdout).toBe('Zasady API: http://localhost/svc/prompt/common_api.md\nHost: http://localhost\nAuthorization: Bearer <API_TOKEN>')
        r = await run(['tok', '--data', data, '--token', adminToken])
        expect(r.stdout).toContain(`Authorization: Bearer ${adminToken}`)
        r = await run(['tok', '--data', data, '--token', aliceToken])
        expect(r.code).toBe(5)
        expect(r.stderr).toContain('not an API token of admin')
        expect(r.stderr).not.toContain(aliceToken)
        r = await run(['tok', '--data', data, '--as', 'alice', '--token', aliceToken])
        expect(r.stdout).toContain(`Authorization: Bearer ${aliceToken}`)
      })

      it('unknown flags fall back to oclif and its usage error', async () => {
        const r = await run(['greet', '--nope', '--data', data])
        expect(r.code).toBe(2)
        expect(r.stderr).toContain('Nonexistent flag')
      })
    })
  }

  it('the fast path answers on --data without loading oclif or undici (no Request/Response); the oclif path loads both, as one bundled file', async () => {
    // oclif = the bundle every command imports (dist/oclif.js, an ES module: seen by a load hook);
    // unbundled = @oclif/core's own CommonJS files (seen in require.cache).
    const hook = join(files, 'probe-hook.mjs')
    writeFileSync(hook, `import {register} from 'node:module'
      register('data:text/javascript,' + encodeURIComponent(\`import {writeSync} from 'node:fs'
        export async function load(url, context, next) {
          if (url.endsWith('/dist/oclif.js')) writeSync(2, 'the oclif bundle is loaded\\\\n')
          return next(url, context)
        }\`))`)
    const probe = join(files, 'probe.cjs')
    writeFileSync(probe, `process.on('exit', () => {
      const unbundled = Object.keys(require.cache).some((k) => k.includes('/node_modules/@oclif/core/'))
      require('fs').writeSync(2, 'loaded unbundled=' + unbundled + ' undici=' + process.moduleLoadList.some((m) => m.includes('undici')) + '\\n')
    })`)
    const render = (env: Record<string, string>) => svc(['prompt', 'render', 'crm_dashboard', '--var', 'client_id=7', '--data', data],
      {env: {NODE_OPTIONS: `--require ${probe} --import ${hook}`, ...env}})
    const [fast, slow] = await Promise.all([render({}), render({SVC_NO_FASTPATH: '1'})])
    expect(fast.stdout).toContain('# CRM assistant')
    expect(fast.stderr).toContain('loaded unbundled=false undici=false')
    expect(fast.stderr).not.toContain('the oclif bundle is loaded')
    expect(slow.stdout).toBe(fast.stdout)
    expect(slow.stderr).toContain('loaded unbundled=false undici=true')
    expect(slow.stderr).toContain('the oclif bundle is loaded')
  })

  it('the fast path and oclif print byte for byte the same, errors and exit codes included', async () => {
    const cases = [
      ['greet', '--var', 'who=Ada', '--date', '2026-04-05', '--explain'],
      ['greet', '--json', '--var', 'who=Ada', '--date', '2026-04-05'],
      ['nope'],
      ['nope', '--json'],
      ['greet', '--strict'],
      ['greet', '--date', 'soon', '--json'],
      ['greet', '--as', 'alice', '--var', 'who=Al', '--date', '2026-04-05', '--explain'],
      ['crm_dashboard', '--explain', '--date', '2026-04-05', '--var', 'client_id=9'],
      ['common_api', '--as', 'alice', '--json'],
      ['tok', '--token', adminToken, '--explain'],
      ['tok', '--token', aliceToken],
      ['tok', '--as', 'nobody'],
      ['bad name!'],
    ]
    for (const args of cases) {
      const [fast, slow] = await Promise.all(PATHS.map((p) => svc(['prompt', 'render', ...args, '--data', data], {env: p.env})))
      expect({code: fast!.code, stdout: fast!.stdout, stderr: fast!.stderr}, args.join(' ')).toEqual({code: slow!.code, stdout: slow!.stdout, stderr: slow!.stderr})
    }
  }, 180_000)

  it('the real binary: fast path and oclif answer alike for a missing variable, a missing prompt and --json', async () => {
    // The in-process runs above load the fast path as bin/run.js does; these spawn bin/run.js itself.
    const cases = [
      ['greet', '--var', 'who=Ada', '--date', '2026-04-05'],
      ['greet', '--strict'],
      ['greet', '--json', '--date', '2026-04-05'],
      ['nope'],
      ['nope', '--json'],
    ]
    for (const args of cases) {
      const [fast, slow] = await Promise.all(PATHS.map((p) => svcProcess(['prompt', 'render', ...args, '--data', data], {env: p.env})))
      expect({code: fast!.code, stdout: fast!.stdout, stderr: fast!.stderr}, args.join(' ')).toEqual({code: slow!.code, stdout: slow!.stdout, stderr: slow!.stderr})
    }
    const [missingVariable, missingPrompt] = await Promise.all([
      svcProcess(['prompt', 'render', 'greet', '--var', 'who=Ada', '--date', '2026-04-05', '--data', data]),
      svcProcess(['prompt', 'render', 'nope', '--json', '--data', data]),
    ])
    expect(missingVariable.code).toBe(0)
    expect(missingVariable.stderr).toContain('Warning: not given, rendered blank: client_id')
    expect(missingPrompt.code).toBe(4)
    expect(missingPrompt.json).toMatchObject({error: {code: 'not_found', status: 404}})
  }, 180_000)

  it('the fast path on a local data dir starts without the ES module loader or crypto, from one bundled file', async () => {
    // What a cold start pays for (docs/benchmarks.md "CLI cold start"): the files Node's CommonJS
    // loader compiles (the bundle itself is compiled from its code cache) and the built-in modules loaded.
    const probe = join(files, 'start-probe.cjs')
    writeFileSync(probe, `const Module = require('module')
      const compile = Module.prototype._compile
      const compiled = []
      Module.prototype._compile = function (content, filename) { compiled.push(filename); return compile.apply(this, arguments) }
      process.on('exit', () => {
        const builtins = process.moduleLoadList.filter((m) => /^NativeModule (crypto|internal\\/modules\\/esm\\/translators)$/.test(m))
        require('fs').writeSync(2, 'compiled=' + JSON.stringify(compiled.filter((f) => f !== __filename)) + ' builtins=' + JSON.stringify(builtins) + '\\n')
      })`)
    const r = await svcProcess(['prompt', 'render', 'greet', '--var', 'who=Ada', '--data', data], {env: {NODE_OPTIONS: `--require ${probe}`}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.startsWith('Hello Ada on ')).toBe(true)
    expect(r.stderr).toContain(`compiled=${JSON.stringify([join(ROOT, 'bin', 'run.js'), join(ROOT, 'dist', 'code-cache.cjs')])} builtins=[]`)
  })

  it('a user prompt wins for its user only; delete brings back the lower layer', async () => {
    const r = await svc(['prompt', 'create', '--name', 'Mine', '--code', 'common_api', '--scope', 'user', '--content', 'my rules',
      '--data', data, '--as', 'alice', '--json'])
    expect(r.code, r.stdout).toBe(0)
    expect((await svc(['prompt', 'render', 'common_api', '--data', data, '--as', 'alice'])).stdout).toBe('my rules')
    expect((await svc(['prompt', 'render', 'common_api', '--data', data])).stdout).toContain('# API rules')
    const d = await svc(['prompt', 'delete', r.json.id, '--yes', '--data', data, '--as', 'alice'])
    expect(d.code).toBe(0)
    expect(d.stdout).toContain(`Deleted prompt ${r.json.id}`)
    expect((await svc(['prompt', 'render', 'common_api', '--data', data, '--as', 'alice'])).stdout).toContain('# API rules')
  })

  it('prompt system lists the files and prints one without its front matter', async () => {
    let r = await svc(['prompt', 'system', '--data', data, '--json'])
    expect(r.json.map((p: {code: string}) => p.code)).toContain('crm_dashboard')
    r = await svc(['prompt', 'system', 'crm_dashboard', '--data', data])
    expect(r.stdout.slice(0, 40), r.stderr).toBe('# CRM assistant\n\nYou are the assistant b')
    expect(r.stdout).toContain('| api_block }}')
  })

  describe('against svc serve (remote)', () => {
    beforeAll(async () => {
      server = await svcServe(data)
    })

    for (const path of PATHS) {
      it(`renders with the bearer token and the server URL (${path.name})`, async () => {
        const r = await svc(['prompt', 'render', 'tok', '--url', server!.url, '--token', aliceToken, '--explain'], {env: path.env})
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout).toBe(`Zasady API: ${server!.url}/svc/prompt/common_api.md\nHost: ${server!.url}\nAuthorization: Bearer ${aliceToken}`)
        expect(r.stderr).toContain(`remote: ${server!.url}`)
        expect(r.stderr).toContain('token: bearer')
        const env = await svc(['prompt', 'render', 'greet', '--var', 'who=Env', '--date', '2026-02-02'],
          {env: {...path.env, SVC_URL: server!.url, SVC_TOKEN: adminToken}})
        expect(env.stdout).toBe('Hello Env on 2026-02-02\n\n\n## Additional instructions\n\nKeep it short.\n')
        const missing = await svc(['prompt', 'render', 'nope', '--url', server!.url, '--token', aliceToken], {env: path.env})
        expect(missing.code).toBe(4)
        const bad = await svc(['prompt', 'render', 'greet', '--url', server!.url, '--token', 'wrong'], {env: path.env})
        expect(bad.code).toBe(3)
      })
    }

    it('CRUD works remote too', async () => {
      const r = await svc(['prompt', 'list', '--code', 'greet', '--url', server!.url, '--token', aliceToken, '--json'])
      expect(r.json).toHaveLength(1)
      const u = await svc(['prompt', 'update', promptId, '--name', 'x', '--url', server!.url, '--token', aliceToken])
      expect(u.code).toBe(3)
      expect(u.stderr).toContain('only its creator or an admin')
    })
  })
})
