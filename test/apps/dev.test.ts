import {spawn} from 'node:child_process'
import {request as httpRequest} from 'node:http'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {chromiumNotice, itWithChromium, launchChromium, withChromium} from '../helpers/browser.js'
import {BIN, cliEnv, svc, svcServe, type ServeProcess, killOnExit, startAppDev} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const startDev = startAppDev


/**
 * The dev page, rendered and with its HMR socket open: an edit made before the socket connects is
 * sent to no one (Vite buffers an error only while no page at all is connected), so on a loaded
 * machine a test that edits right after the first paint could wait forever.
 */
async function openDevPage(context: BrowserContext, url: string) {
  const page = await context.newPage()
  const connected = new Promise<void>((resolve) => page.on('console', (m) => m.text().includes('[vite] connected') && resolve()))
  await page.goto(url)
  await page.getByText('Hello Ada').waitFor({timeout: 60_000})
  await connected
  return page
}
describe('svc app dev: Vite HMR in the app shell, --push to the embedded backend', {timeout: 120_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const dir = join(work, 'counter')
  let dev: Awaited<ReturnType<typeof startDev>> | undefined
  let chrome: Awaited<ReturnType<typeof launchChromium>> | undefined

  beforeAll(async () => {
    const user = await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--name', 'Ada', '--data', data, '--json'])
    expect(user.code, user.stderr).toBe(0)
    const created = await svc(['app', 'create', '--template', 'svelte', '--name', 'Counter', '--public', '--dir', dir, '--data', data, '--json'])
    expect(created.code, created.stderr + created.stdout).toBe(0)
    const db = await svc(['db', 'create', 'Notes', '--code', 'notes', '--public-methods', '{"create":true,"list":true}', '--data', data, '--json'])
    expect(db.code, db.stderr + db.stdout).toBe(0)
    dev = await startDev([dir, '--port', '0', '--push', '--data', data])
    if (withChromium) chrome = await launchChromium()
  }, 180_000)

  afterAll(async () => {
    await chrome?.close()
    if (dev && dev.child.exitCode === null) {
      const exited = new Promise((done) => dev!.child.once('exit', done))
      dev.child.kill('SIGTERM')
      await exited
    }
  })

  it('--port that is in use is an error (exit 2, naming the port), not a silent move to another port', async () => {
    const {createServer} = await import('node:net')
    const busy = createServer()
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done))
    const port = (busy.address() as {port: number}).port
    try {
      const r = await svc(['app', 'dev', dir, '--port', String(port), '--data', data])
      expect(r.code, r.stdout + r.stderr).toBe(2)
      expect(r.stderr).toContain(`port ${port} is in use`)
      expect(r.stderr).toContain('--port 0')
    } finally {
      busy.close()
    }
  })

  it('--json prints a ready event with the URL, then one JSON object per line', async () => {
    const child = killOnExit(spawn(process.execPath, [BIN, 'app', 'dev', dir, '--port', '0', '--json', '--data', data], {env: cliEnv()}))
    let out = ''
    const ready = await new Promise<{event: string; url: string}>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready event: ${out}`)), 90_000)
      child.stdout.on('data', (d) => {
        out += d
        if (out.includes('\n')) {
          clearTimeout(timer)
          resolve(JSON.parse(out.split('\n')[0]!))
        }
      })
    })
    expect(ready).toEqual({event: 'ready', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/)})
    expect((await fetch(ready.url)).status).toBe(200)
    const exited = new Promise((done) => child.once('exit', done))
    child.kill('SIGTERM')
    await exited
    for (const line of out.trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow()
  })

  chromiumNotice()

  itWithChromium('serves the shell with the backend user, updates on save without a full reload, and pushes the source', async () => {
    const page = await openDevPage(chrome!.context, dev!.url)
    await page.getByRole('button', {name: 'Clicked 0 times'}).click()
    await page.getByRole('button', {name: 'Clicked 1 times'}).waitFor()
    await page.evaluate(() => ((window as any).__svcMarker = 'still here'))
    const source = join(dir, 'App.svelte')
    writeFileSync(source, readFileSync(source, 'utf8').replace('Clicked {count} times', 'Pressed {count} times'))
    await page.getByRole('button', {name: /^Pressed \d+ times$/}).waitFor({timeout: 60_000})
    expect(await page.evaluate(() => (window as any).__svcMarker)).toBe('still here')
    await expect.poll(() => dev!.lines().some((l) => /^updated in \d+ ms$/.test(l)), {timeout: 30_000}).toBe(true)
    await expect.poll(() => dev!.lines().some((l) => /^pushed in \d+ ms/.test(l)), {timeout: 60_000}).toBe(true) // a compile on the backend: many seconds under load
    const got = await svc(['app', 'get', 'counter', '--data', data, '--json'])
    expect(got.json.source_code).toContain('Pressed {count} times')
    await page.close()
  })

  it('proxies /_svc/lib, /svc/db, actions and connectors to the backend (in-process for --data)', async () => {
    const lib = await fetch(`${dev!.url}_svc/lib/tailwind-browser.js?v=1`)
    expect(lib.status).toBe(200)
    expect(lib.headers.get('cache-control')).toContain('immutable')
    const made = await fetch(`${dev!.url}svc/db/notes/create`, {method: 'POST', headers: {'content-type': 'application/json'},
      body: JSON.stringify({data: {text: 'via dev server'}})})
    expect(made.status, await made.clone().text()).toBeLessThan(300)
    const listed = await (await fetch(`${dev!.url}svc/db/notes/list`)).json()
    expect(listed.map((r: {data: {text: string}}) => r.data.text)).toEqual(['via dev server'])
    for (const path of ['svc/db/nope/list', 'svc/connector/nope/get', 'svc/apps/00000000-0000-4000-8000-000000000000/action/x']) {
      const r = await fetch(`${dev!.url}${path}`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
      expect(r.status, path).toBeGreaterThanOrEqual(400)
      expect(r.status, path).toBeLessThan(500)
      expect(r.headers.get('content-type'), path).toContain('application/json')
    }
  })

  it('refuses what another site makes it do with the developer\'s token (issue 24 M6): navigations, other origins, rebound names', async () => {
    const port = new URL(dev!.url).port
    /** A raw request: fetch() cannot set Host or the Sec-Fetch-* headers a browser sends. */
    const raw = (path: string, headers: Record<string, string>, method = 'GET', body?: string) => new Promise<{status: number; json: any}>((done, fail) => {
      const req = httpRequest({host: '127.0.0.1', port, path, method, headers: {host: `127.0.0.1:${port}`, ...headers}}, (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () => {
          let json: any = null
          try {
            json = JSON.parse(text)
          } catch {
            json = {error: text}
          }
          done({status: res.statusCode!, json})
        })
      })
      req.on('error', fail)
      req.end(body)
    })
    const link = {'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document'}
    const localNoCors = {'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty', origin: 'http://localhost:3000',
      'content-type': 'text/plain'}
    const cases: [string, string, Record<string, string>, string?][] = [
      ['GET navigation from another site writes a record', '/svc/db/notes/create?data[text]=planted', link],
      ['a typed or mailed link writes a record', '/svc/db/notes/create?data[text]=planted', {'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate'}],
      ['no-cors POST from another local origin runs an action', '/svc/apps/00000000-0000-4000-8000-000000000000/action/x', localNoCors, 'POST'],
      ['no-cors POST from another local origin writes a record', '/svc/db/notes/create', localNoCors, 'POST'],
      ['a foreign Origin (a browser without Fetch Metadata)', '/svc/db/notes/create', {origin: 'http://evil.example', 'content-type': 'text/plain'}, 'POST'],
      ['a read from another site\'s page', '/svc/db/notes/list', {'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'http://evil.example'}],
      ['a page on a name rebound to 127.0.0.1', '/svc/db/notes/list', {host: `evil.example:${port}`, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors'}],
      ['a connector call from another site', '/svc/connector/nope/get', link],
    ]
    for (const [what, path, headers, method] of cases) {
      const r = await raw(path, headers, method, method === 'POST' ? JSON.stringify({data: {text: 'planted'}}) : undefined)
      expect(r.status, what).toBe(403)
      expect(r.json.error, what).toMatch(/refused|not allowed/)
    }
    expect((await raw('/', {host: `evil.example:${port}`})).status).toBe(403)
    // Nothing was written; the app's own page (same-origin fetch) and the developer's typed reads still work.
    const own = await raw('/svc/db/notes/list', {'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty'})
    expect(own.status).toBe(200)
    expect(own.json.map((r: {data: {text: string}}) => r.data.text)).not.toContain('planted')
    // Reads too run with the developer's token: not by a navigation, not even a typed one (curl, with no such headers, still works).
    expect((await raw('/svc/db/notes/list', {'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', host: `localhost:${port}`})).status).toBe(403)
    expect((await raw('/svc/db/notes/list', {host: `localhost:${port}`})).status).toBe(200)
    const write = await raw('/svc/db/notes/create', {'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', origin: `http://127.0.0.1:${port}`,
      'content-type': 'application/json'}, 'POST', JSON.stringify({data: {text: 'from the page'}}))
    expect(write.status).toBe(201)
  })

  itWithChromium('a compile error shows in the browser overlay and in the terminal, and a push is refused with the line', async () => {
    const page = await openDevPage(chrome!.context, dev!.url)
    const source = join(dir, 'App.svelte')
    writeFileSync(source, readFileSync(source, 'utf8').replace('</main>', '</mian>'))
    const overlay = page.locator('#svc-dev-error')
    await overlay.waitFor({state: 'attached', timeout: 60_000})
    expect(await overlay.textContent()).toContain('App.svelte')
    expect(await overlay.textContent()).not.toContain('vite.config')
    await expect.poll(() => dev!.lines().some((l) => /compile error in App\.svelte:\d+:\d+/.test(l)), {timeout: 60_000}).toBe(true)
    // The message itself, not only the link to the rule (issue 30).
    expect(dev!.lines().find((l) => l.startsWith('compile error in App.svelte'))).toMatch(/^compile error in App\.svelte:\d+:\d+: .*attempted to close/)
    await expect.poll(() => dev!.lines().some((l) => /^push refused: source_code line \d+, column \d+/.test(l)), {timeout: 60_000}).toBe(true)
    await page.close()
  })
})

describe('svc app dev against a remote backend (--url --token)', {timeout: 120_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const dir = join(work, 'board')
  let server: ServeProcess | undefined
  let dev: Awaited<ReturnType<typeof startDev>> | undefined

  beforeAll(async () => {
    const user = await svc(['admin', 'user', 'add', 'rita', '--role', 'admin', '--name', 'Rita', '--data', data, '--json'])
    expect(user.code, user.stderr).toBe(0)
    server = await svcServe(data)
    const remote = ['--url', server.url, '--token', user.json.token]
    const created = await svc(['app', 'create', '--template', 'react', '--name', 'Board', '--dir', dir, ...remote, '--json'])
    expect(created.code, created.stderr + created.stdout).toBe(0)
    dev = await startDev([dir, '--port', '0', ...remote])
  }, 180_000)

  afterAll(async () => {
    if (dev && dev.child.exitCode === null) {
      const exited = new Promise((done) => dev!.child.once('exit', done))
      dev.child.kill('SIGTERM')
      await exited
    }
    await server?.stop()
  })

  it('the shell carries the token user\'s context and the React entry; the engine libraries come from the server', async () => {
    const html = await (await fetch(dev!.url)).text()
    const context = JSON.parse(/window\.SvcAppContext = (.*?);<\/script>/.exec(html)![1]!)
    expect(context.user).toMatchObject({login: 'rita', name: 'Rita', role: 'admin'})
    expect(context.app.url_code).toBe('board')
    expect(html).toContain('<div id="svc-app"></div>')
    const entry = await fetch(`${dev!.url}@svc/entry.js`)
    expect(entry.status).toBe(200)
    expect(await entry.text()).toContain('createRoot')
    const lib = await fetch(`${dev!.url}_svc/lib/kaplay.mjs?v=1`)
    expect(lib.status).toBe(200)
    expect(lib.headers.get('cache-control')).toContain('immutable')
  })

  it('serves the folder\'s assets at their paths, as the app origin does, and nothing else of the folder (issue 30)', async () => {
    mkdirSync(join(dir, 'assets'), {recursive: true})
    writeFileSync(join(dir, 'assets', 'sky.png'), Buffer.from('89504e470d0a1a0a', 'hex'))
    const png = await fetch(`${dev!.url}assets/sky.png`)
    expect(png.status).toBe(200)
    expect(png.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await png.arrayBuffer()).toString('hex')).toBe('89504e470d0a1a0a')
    for (const path of ['app.json', '.svc-sync.json', 'assets/../app.json', 'assets/%2e%2e/app.json']) {
      const r = await fetch(`${dev!.url}${path}`)
      expect(r.headers.get('content-type') ?? '', path).not.toContain('json')
    }
  })

  it('TypeScript in App.jsx is served with its types stripped; a compile error is printed whole (message, place, code frame) (issue 30)', async () => {
    const source = join(dir, 'App.jsx')
    let fetches = 0
    const module = () => fetch(`${dev!.url}@fs${source}?n=${++fetches}`)
    writeFileSync(source, 'import {useState} from "react"\nexport default function App() {\n  const [n, setN] = useState<number>(0)\n  return <button onClick={() => setN(n + 1)}>{n}</button>\n}\n')
    const typed = await module()
    expect(typed.status).toBe(200)
    const code = await typed.text()
    expect(code).toContain('useState(0)')
    expect(code).not.toContain('<number>')
    writeFileSync(source, 'export default function App() {\n  const x = 1\n  return <p>{x</p>\n}\n')
    await expect.poll(async () => (await module()).status, {timeout: 60_000}).toBe(500)
    const report = () => dev!.lines().join('\n')
    await expect.poll(() => /compile error in App\.jsx:3:\d+: \S/.test(report()), {timeout: 60_000}).toBe(true)
    const at = report().lastIndexOf('compile error in App.jsx')
    const printed = report().slice(at)
    expect(printed).not.toMatch(/Transform failed/)
    expect(printed).not.toContain(dir)
    // The code frame: the offending line as written.
    expect(printed).toContain('return <p>{x</p>')
  })
})

// Issue 38: a js app is used as written (platform-api.md); svc app dev says in its terminal what a
// browser would refuse (as a push's X-Svc-Warning would), and never refuses it.
describe('svc app dev: a js source a browser would refuse is a warning in the terminal', {timeout: 120_000}, () => {
  it('warns at start and after an edit, once per distinct warning', async () => {
    const data = tempDir()
    const dir = join(tempDir(), 'plain')
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
    const created = await svc(['app', 'create', '--template', 'js', '--name', 'Plain', '--dir', dir, '--data', data, '--json'])
    expect(created.code, created.stderr + created.stdout).toBe(0)
    const source = join(dir, 'app.js')
    writeFileSync(source, 'const n = 1\nimport confetti from "canvas-confetti"\n')
    const dev = await startDev([dir, '--port', '0', '--data', data])
    try {
      const report = () => dev.lines().join('\n')
      await expect.poll(() => /warning: source_code line 2, column 1: Cannot use import statement outside a module/.test(report()), {timeout: 60_000}).toBe(true)
      // Saved once, right after the start: the dev server gives its URL only once it watches the source.
      writeFileSync(source, 'const n: number = 1\n')
      await expect.poll(() => /warning: source_code line 1, column 7: /.test(report()), {timeout: 30_000}).toBe(true)
      expect(readFileSync(source, 'utf8')).toBe('const n: number = 1\n')
    } finally {
      const exited = new Promise((done) => dev.child.once('exit', done))
      dev.child.kill('SIGTERM')
      await exited
    }
  })
})
