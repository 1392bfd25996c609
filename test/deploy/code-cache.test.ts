// Cold start on Node 20 (issue 25 item 14): dist/oclif.js loads the oclif bundle (dist/oclif.cjs)
// with a V8 code cache, and bin/run.js loads the `prompt render` fast path's bundle with one. A start writes
// the cache when there is none; V8 takes it on the next start; a broken cache file costs nothing
// but the cache (the command answers the same). How much it saves: bench/startup.js,
// docs/benchmarks.md — not asserted here (no test reads the clock).
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {Script} from 'node:vm'
import {beforeAll, describe, expect, it} from 'vitest'
import {ROOT, svc, svcProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const dist = join(ROOT, 'dist')
let cacheFileName: (filename: string) => string
let wrapCommonJs: (source: string) => string

beforeAll(async () => {
  ;({cacheFileName, wrapCommonJs} = await import(pathToFileURL(join(dist, 'fastpath', 'code-cache.js')).href))
})

/** Whether V8 takes the cache file for this source, as the loader compiles it. */
function accepted(file: string, cache: string): boolean {
  const script = new Script(wrapCommonJs(readFileSync(file, 'utf8')), {filename: file, cachedData: readFileSync(cache)})
  return script.cachedDataRejected === false
}

describe('V8 code caches of the start', () => {
  const xdg = tempDir() // where a cache goes when dist/ cannot be written: here it can, so it stays empty
  const env = {XDG_CACHE_HOME: xdg}

  it('svc --help writes the oclif bundle\'s cache beside it, which V8 then takes; the answer is the same without it', async () => {
    const bundle = join(dist, 'oclif.cjs')
    const cache = join(dist, cacheFileName(bundle))
    rmSync(cache, {force: true})
    const first = await svcProcess(['--help'], {env})
    expect(first.code, first.stderr).toBe(0)
    expect(existsSync(cache)).toBe(true)
    expect(accepted(bundle, cache)).toBe(true)
    const second = await svcProcess(['--help'], {env})
    const without = await svcProcess(['--help'], {env: {...env, SVC_NO_CODE_CACHE: '1'}})
    expect(second.stdout).toBe(first.stdout)
    expect(without.stdout).toBe(first.stdout)
    expect(second.stdout).toContain('USAGE')
    expect(existsSync(join(xdg, 'svc'))).toBe(false)
  }, 120_000)

  it('commands loaded through the cached bundle run (their dynamic imports go through the loader)', async () => {
    const data = tempDir()
    expect((await svcProcess(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data], {env})).code).toBe(0)
    const list = await svcProcess(['prompt', 'list', '--data', data, '--json'], {env})
    expect(list.code, list.stderr).toBe(0)
    expect(list.json).toEqual([])
  }, 120_000)

  it('a broken cache file is ignored: the command answers as without one', async () => {
    const bundle = join(dist, 'oclif.cjs')
    const cache = join(dist, cacheFileName(bundle))
    const good = await svcProcess(['--help'], {env})
    writeFileSync(cache, Buffer.from('not a V8 code cache'.repeat(100)))
    try {
      const broken = await svcProcess(['--help'], {env})
      expect(broken.code, broken.stderr).toBe(0)
      expect(broken.stdout).toBe(good.stdout)
      // ...and replaced by a good one.
      expect(accepted(bundle, cache)).toBe(true)
    } finally {
      rmSync(cache, {force: true})
    }
  }, 120_000)

  it('the prompt render fast path is one bundle whose cache goes into dist/, which V8 then takes', async () => {
    const data = tempDir()
    await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data])
    await svc(['prompt', 'create', '--name', 'Hi', '--code', 'hi', '--content', 'Hello {{ who }}', '--data', data])
    const bundle = join(dist, 'fastpath-prompt-render.cjs')
    const cache = join(dist, cacheFileName(bundle))
    rmSync(cache, {force: true})
    const first = await svcProcess(['prompt', 'render', 'hi', '--var', 'who=Ada', '--data', data], {env})
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe('Hello Ada')
    expect(existsSync(cache)).toBe(true)
    expect(accepted(bundle, cache)).toBe(true)
    const second = await svcProcess(['prompt', 'render', 'hi', '--var', 'who=Bo', '--data', data], {env})
    expect(second.stdout).toBe('Hello Bo')
    const without = await svcProcess(['prompt', 'render', 'hi', '--var', 'who=Cy', '--data', data], {env: {...env, SVC_NO_CODE_CACHE: '1'}})
    expect(without.stdout).toBe('Hello Cy')
    expect(existsSync(join(xdg, 'svc'))).toBe(false)
  }, 120_000)

  it('svc --help on a Linux that is not WSL loads no WSL probe (wsl-utils and its five modules), and still names the platform', async () => {
    const files = tempDir()
    const hook = join(files, 'probe-hook.mjs')
    writeFileSync(hook, `import {register} from 'node:module'
      register('data:text/javascript,' + encodeURIComponent(\`import {writeSync} from 'node:fs'
        export async function load(url, context, next) {
          if (url.includes('/node_modules/')) writeSync(2, 'loaded ' + url + '\\\\n')
          return next(url, context)
        }\`))`)
    const r = await svcProcess(['--help'], {env: {...env, NODE_OPTIONS: `--import ${hook}`}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`svc/0.1.0 ${process.platform}-${process.arch}`)
    if (process.platform === 'linux' && !/microsoft/i.test(readFileSync('/proc/version', 'utf8'))) {
      expect(r.stderr).not.toMatch(/wsl-utils|is-wsl|is-docker|powershell-utils/)
    }
  }, 120_000)
})

