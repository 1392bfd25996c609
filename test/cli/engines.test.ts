// Issue 19 items 5, 6, 7: engine versions in --help; the engine from the file; relative imports
// refused with a position that exists; source maps of served code; Phaser 3 / kaboom 2000 code.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {openApp} from '../helpers/app-origin.js'
import {tempDir, type Transport} from '../helpers/world.js'

/** The served app is on its own origin (`<code>.localhost:<port>`): reached with that Host header. */
function serverTransport(origin: string): Transport {
  const get = (url: URL, init: RequestInit = {}) => new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = {host: url.host}
    new Headers(init.headers).forEach((v, k) => (headers[k] = v))
    const target = new URL(origin)
    void import('node:http').then(({request}) => {
      const req = request({host: target.hostname, port: target.port, path: url.pathname + url.search, method: init.method ?? 'GET', headers}, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const out = new Headers()
          for (const [k, v] of Object.entries(res.headers)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one)
          const status = res.statusCode ?? 500
          resolve(new Response([204, 304].includes(status) ? null : Buffer.concat(chunks), {status, headers: out}))
        })
      })
      req.on('error', reject)
      req.end()
    })
  })
  return {origin, fetch: (path: string, init?: RequestInit) => get(new URL(path, origin), init)} as unknown as Transport
}

describe('app engines through the CLI', {timeout: 180_000}, () => {
  const data = tempDir()
  const work = tempDir()
  let server: ServeProcess | undefined
  let remote: string[] = []
  const run = (...args: string[]) => svc([...args, ...remote], {cwd: work})
  const file = (name: string, text: string) => writeFileSync(join(work, name), text)

  beforeAll(async () => {
    const ada = await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])
    server = await svcServe(data, [], {timeoutMs: 120_000})
    remote = ['--url', server.url, '--token', ada.json.token]
  }, 300_000)
  afterAll(async () => {
    await server?.stop()
  })

  it('app create --help names the engine versions', async () => {
    const r = await svc(['app', 'create', '--help'])
    expect(r.stdout).toContain('Phaser 4')
    expect(r.stdout).toContain('kaplay 3001')
  })

  it('the engine comes from the file: .jsx is react, a phaser .js is phaser, .svelte is svelte', async () => {
    file('snake.jsx', 'export default function Snake() { return <p>snake</p> }\n')
    const jsx = await run('app', 'create', '--name', 'Snake', '--file', 'snake.jsx', '--json')
    expect(jsx.code, jsx.stdout).toBe(0)
    expect(jsx.json.app_engine).toBe('react')
    file('game.js', 'new Phaser.Game({type: Phaser.AUTO, width: 100, height: 100, scene: {create() {}}})\n')
    const game = await run('app', 'create', '--name', 'Game', '--file', 'game.js')
    expect(game.code, game.stderr).toBe(0)
    expect(game.stderr).toContain('engine: phaser (from game.js')
    file('c.svelte', '<p>hi</p>\n')
    expect((await run('app', 'create', '--name', 'C', '--file', 'c.svelte', '--json')).json.app_engine).toBe('svelte')
    file('k.js', 'kaboom()\ngravity(2400)\nadd([text("hi")])\n')
    expect((await run('app', 'create', '--name', 'K', '--file', 'k.js', '--json')).json.app_engine).toBe('kaboom')
  })

  it('a js app is used as written: an import or TypeScript is saved, and the CLI warns on stderr (issue 38, platform-api.md Engines)', async () => {
    const source = 'const n = 1\nimport confetti from "canvas-confetti"\nconfetti()\n'
    file('imports.js', source)
    const r = await run('app', 'create', '--name', 'Imports', '--engine', 'js', '--file', 'imports.js', '--json')
    expect(r.code, r.stdout).toBe(0)
    expect(r.json.source_code).toBe(source)
    expect(r.stderr).toMatch(/Warning: source_code line 2, column 1: Cannot use import statement outside a module\. A js app is served as written/)
    file('typed.ts', 'const n: number = 2\ndocument.body.append(String(n * 21))\n')
    const typed = await run('app', 'create', '--name', 'Typed', '--engine', 'js', '--file', 'typed.ts', '--public', '--json')
    expect(typed.code, typed.stdout).toBe(0)
    expect(typed.stderr).toMatch(/Warning: source_code line 1/)
    const opened = await openApp(serverTransport(server!.url), `/a/${typed.json.url_code}`)
    const js = await (await serverTransport(server!.url).fetch(opened.js!)).text()
    expect(js).toBe('const n: number = 2\ndocument.body.append(String(n * 21))\n')
  })

  it('TypeScript in a game compiles', async () => {
    file('ts-game.ts', 'const speed: number = 3\nnew Phaser.Game({type: Phaser.AUTO, scene: {update(): void { void speed }}})\n')
    const r = await run('app', 'create', '--name', 'TS', '--file', 'ts-game.ts', '--json')
    expect(r.code, r.stdout).toBe(0)
    expect(r.json.app_engine).toBe('phaser')
  })

  for (const [engine, name, source, line] of [
    ['svelte', 'App.svelte', '<script>\n  let n = $state(0)\n  import {count} from "./stores.js"\n</script>\n<p>{n}</p>\n', 3],
    ['vue', 'App.vue', '<script setup>\nimport {ref} from "vue"\nimport {count} from "./stores.js"\n</script>\n<template><p>x</p></template>\n', 3],
    ['react', 'App.jsx', 'import {useState} from "react"\n\n\nimport {count} from "./stores.js"\nexport default () => <p>{count}</p>\n', 4],
  ] as const) {
    it(`${engine}: a relative import says a single-file app cannot import files, at a position that exists`, async () => {
      file(name, source)
      const r = await run('app', 'create', '--name', 'R', '--engine', engine, '--file', name, '--json')
      expect(r.code).toBe(5)
      const message = r.json.error.details.source_code[0] as string
      expect(message).toContain('single-file app')
      const m = /^line (\d+), column (\d+): /.exec(message)!
      expect(Number(m[1])).toBe(line)
      const text = source.split('\n')[line - 1]!
      expect(Number(m[2])).toBe(text.indexOf('"./stores.js"') + 1)
    })
  }

  it('served code carries a source map of the app\'s own file', async () => {
    const src = '<script>\n  let n = $state(0)\n</script>\n<button onclick={() => n++}>Clicked {n}</button>\n'
    file('Map.svelte', src)
    const app = (await run('app', 'create', '--name', 'Map', '--file', 'Map.svelte', '--public', '--json')).json
    const opened = await openApp(serverTransport(server!.url), `/a/${app.url_code}`)
    expect(opened.js, opened.html).toBeDefined()
    const js = await (await serverTransport(server!.url).fetch(opened.js!)).text()
    const m = /\/\/# sourceMappingURL=data:application\/json;charset=utf-8;base64,(\S+)\s*$/.exec(js)!
    const map = JSON.parse(Buffer.from(m[1]!, 'base64').toString('utf8'))
    expect(map.sources).toEqual(['App.svelte'])
    expect(map.sourcesContent).toEqual([src])
    expect(map.mappings.length).toBeGreaterThan(0)
    expect(js.length).toBeLessThan(60_000)
  })
})
