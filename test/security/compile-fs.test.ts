// Issue 24 H1: an app source whose CSS had `url(/any/path?inline)` made Vite inline that file into
// the app's public stylesheet — any account read the SQLite file, /etc/passwd, /proc/self/environ.
// Every engine and css engine is tried with every query suffix Vite knows and every path form,
// aimed at a marker file holding a unique secret and at the server's own data dir. Each create is
// refused with a 422 under `source_code` that names no server path, or its build — as served at the
// app's origin — holds no byte of the target.
import {mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, expect, it, vi} from 'vitest'
import {openApp} from '../helpers/app-origin.js'
import {describeBothTransports, type Ctx} from '../helpers/scenarios.js'
import {TRANSPORTS} from '../helpers/world.js'

vi.setConfig({testTimeout: 600_000})

const SECRET = `SvcMarker${Math.random().toString(36).slice(2, 12)}Secret`
const markerDir = mkdtempSync(join(tmpdir(), 'svc-marker-'))
writeFileSync(join(markerDir, 'secret.css'), `.${SECRET}{color:red}\n`)
writeFileSync(join(markerDir, 'secret.txt'), `${SECRET}\n`)
afterAll(() => rmSync(markerDir, {recursive: true, force: true}))

const SQLITE_HEADER = 'SQLite format 3'
/** The secret as it can appear in a build: as is, or base64 (a data: URL) at any byte alignment. */
const traces = (text: string) => [0, 1, 2].map((pad) => Buffer.from('\0'.repeat(pad) + text).toString('base64').slice(4, 4 + Math.floor(text.length * 4 / 3) - 4))
const FORBIDDEN = [SECRET, ...traces(SECRET), SQLITE_HEADER, ...traces(SQLITE_HEADER), 'root:x:0:0']

/** Every query suffix Vite gives a meaning, with case, encoding, `#` and `&` variants. */
const SUFFIXES = [
  '', '?inline', '?raw', '?url', '?worker', '?sharedworker', '?worker&inline', '?worker&url', '?no-inline', '?import', '?init',
  '?inline&raw', '?raw&inline', '?INLINE', '?Raw', '?%69nline', '#?inline', '?x#inline', '?t=1&inline', '?direct', '?used', '&inline',
]

/** The ways to name a file: absolute, relative from the build folder, file://, /@fs/, ~, backslashes, percent-encoded. */
const pathForms = (abs: string): string[] => [
  abs,
  `${'../'.repeat(12)}${abs.slice(1)}`,
  `./${'../'.repeat(12)}${abs.slice(1)}`,
  `file://${abs}`,
  `/@fs${abs}`,
  `~${abs}`,
  `//${abs}`.replace('///', '/\\/'),
  abs.replaceAll('/', '%2F'),
  `${'..%2F'.repeat(12)}${abs.slice(1).replaceAll('/', '%2F')}`,
  abs.replace('/', '/./').replace(/\/([^/]+)$/, '/x/../$1'),
]

/** CSS that names a file, in every construct Vite or Tailwind follows. */
const CSS_FORMS: ((t: string) => string)[] = [
  (t) => `p { background: url(${t}) }`,
  (t) => `p { background: url('${t}') }`,
  (t) => `p { background: url("${t}") }`,
  (t) => `p { background: URL(${t}) }`,
  (t) => `p { background: u\\72l(${t}) }`,
  (t) => `p { background-image: image-set("${t}" 1x) }`,
  (t) => `p { background-image: image-set(url(${t}) 1x, "${t}" 2x) }`,
  (t) => `p { background-image: -webkit-image-set(url(${t}) 1x) }`,
  (t) => `@import url(${t});\np { color: red }`,
  (t) => `@import "${t}";\np { color: red }`,
  (t) => `@\\69mport "${t}";\np { color: red }`,
  (t) => `@font-face { font-family: x; src: url(${t}) format("woff2") }`,
  (t) => `p { mask: url(${t}); cursor: url(${t}), auto }`,
  (t) => `p::before { content: url(${t}) }`,
  (t) => `@plugin "${t}";\np { color: red }`,
  (t) => `@config "${t}";\np { color: red }`,
  (t) => `@source "${t}";\np { color: red }`,
  (t) => `@reference "${t}";\np { color: red }`,
  (t) => `@utility leak { background: url(${t}) }\np { color: red }`,
  (t) => `p { background: url(/* c */${t}) }`,
]

/** JavaScript that names a file, in every construct Vite or esbuild follows. */
const JS_FORMS: ((t: string) => string)[] = [
  (t) => `import leak from '${t}'\nconst shown = String(leak)`,
  (t) => `import '${t}'\nconst shown = 'x'`,
  (t) => `const shown = String(import('${t}'))`,
  (t) => `const shown = new URL('${t}', import.meta.url).href`,
  (t) => `const shown = String(new Worker(new URL('${t}', import.meta.url)))`,
  (t) => `const shown = JSON.stringify(import.meta.glob('${t}', {query: '?raw', eager: true}))`,
  (t) => `export {default as leak} from '${t}'\nconst shown = 'x'`,
]

const STYLE_ENGINES = ['svelte', 'vue'] as const

function withStyle(engine: (typeof STYLE_ENGINES)[number], css: string, attrs = ''): string {
  if (engine === 'svelte') return `<p class="p-4">styled</p>\n<style${attrs}>\n${css}\n</style>\n`
  return `<template><p class="p-4">styled</p></template>\n<style${attrs}>\n${css}\n</style>\n`
}

function withScript(engine: string, js: string): string {
  if (engine === 'svelte') return `<script>\n${js}\n</script>\n<p>{shown}</p>\n`
  if (engine === 'vue') return `<script setup>\n${js}\n</script>\n<template><p>{{ shown }}</p></template>\n`
  if (engine === 'react') return `${js}\nexport default function App() { return <p>{shown}</p> }\n`
  if (engine === 'kaboom') return `${js}\nkaboom()\nadd([text(shown)])\n`
  return `import Phaser from 'phaser'\n${js}\nnew Phaser.Game({type: Phaser.AUTO, scene: {create() { this.add.text(1, 1, shown) }}})\n`
}

interface Case {
  engine: string
  cssEngine: string
  source: string
}

function cases(dataDir: string): Case[] {
  const marker = join(markerDir, 'secret.css')
  const text = join(markerDir, 'secret.txt')
  const store = readdirSync(dataDir).filter((f) => /\.(sqlite|db)/.test(f)).map((f) => join(dataDir, f))
  const targets = [
    // Every suffix on the plain absolute path and on the relative one.
    ...SUFFIXES.flatMap((s) => [marker + s, pathForms(marker)[1]! + s]),
    // Every path form, bare and with ?inline / ?raw.
    ...pathForms(text).flatMap((p) => [p, `${p}?inline`, `${p}?raw`]),
    ...store.flatMap((f) => [f, `${f}?inline`, `${f}?raw`]),
    '/etc/passwd?inline', '/proc/self/environ?inline', '/proc/self/cmdline?raw',
  ]
  const out: Case[] = []
  for (const engine of STYLE_ENGINES) {
    // Every CSS construct with the absolute and relative paths, inline-forced and not.
    for (const form of CSS_FORMS) {
      for (const t of [marker, `${marker}?inline`, pathForms(marker)[1]! + '?inline', `/@fs${marker}?inline`]) {
        out.push({engine, cssEngine: 'none', source: withStyle(engine, form(t))})
      }
    }
    // One CSS construct with every target.
    for (const t of targets) out.push({engine, cssEngine: 'none', source: withStyle(engine, CSS_FORMS[2]!(t))})
    // Style blocks of every flavour, and the css engine tailwind.
    for (const attrs of [' scoped', ' module', ' lang="postcss"', ' lang="css"', ' global']) {
      out.push({engine, cssEngine: 'none', source: withStyle(engine, CSS_FORMS[0]!(`${marker}?inline`), attrs)})
    }
    for (const form of CSS_FORMS) out.push({engine, cssEngine: 'tailwind', source: withStyle(engine, form(`${marker}?inline`))})
  }
  // Vue blocks that name a file.
  for (const block of ['style', 'script', 'template']) out.push({engine: 'vue', cssEngine: 'none', source: `<${block} src="${marker}?raw"></${block}>\n<template><p>x</p></template>\n`})
  out.push({engine: 'vue', cssEngine: 'none', source: `<template><img src="~${marker}?inline"><img src="${pathForms(marker)[1]}"></template>\n`})
  // Tailwind class candidates naming a file are text, never read.
  for (const engine of ['svelte', 'vue', 'react'] as const) {
    const classes = `bg-[url(${marker}?inline)] [mask:url(${marker})]`
    const source = engine === 'react'
      ? `export default function App() { return <p className="${classes}">x</p> }\n`
      : withScript(engine, 'const shown = 1').replace('<p>', `<p class="${classes}">`)
    out.push({engine, cssEngine: 'tailwind', source})
  }
  // CSS-in-JS for react: a stylesheet import.
  for (const t of targets.slice(0, 12)) out.push({engine: 'react', cssEngine: 'tailwind', source: withScript('react', `import '${t}'\nconst shown = 1`)})
  // Every JS construct and target on every compiled engine.
  for (const engine of ['svelte', 'vue', 'react', 'kaboom', 'phaser']) {
    for (const form of JS_FORMS) for (const t of [marker, `${marker}?raw`, `${pathForms(marker)[1]}?inline`, `file://${marker}`]) {
      out.push({engine, cssEngine: 'none', source: withScript(engine, form(t))})
    }
    for (const t of targets) out.push({engine, cssEngine: 'none', source: withScript(engine, JS_FORMS[0]!(t))})
  }
  return out
}

/** The app's js and css as served at its own origin. */
async function servedBuild(ctx: Ctx, id: string): Promise<string> {
  const page = await openApp(ctx.transport, `/a/${id}`)
  expect(page.res.status).toBe(200)
  let all = page.html
  for (const url of [page.js, page.css]) if (url) all += await (await ctx.transport.fetch(url)).text()
  return all
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn))
}

describeBothTransports('app compiles read no server file (issue 24 H1)', undefined, (ctx, transport) => {
  it('every engine, css engine, path form and query suffix: a 422 naming no server path, or a build with no byte of the target', async () => {
    const {world} = ctx()
    const all = cases(world.dataDir)
    // The compiler does not know the transport: each case is sent over one of them, every other
    // case over each (the whole matrix once, both transports answering it).
    const mine = all.map((c, i) => ({c, i})).filter(({i}) => i % TRANSPORTS.length === TRANSPORTS.indexOf(transport))
    const outcomes = {refused: 0, built: 0}
    await inBatches(mine, 6, async ({c, i}) => {
      const r = await ctx().call('POST', '/svc/apps.json', {as: 'mallory',
        body: {app: {name: `fs ${i}`, url_code: `fs-${i}`, app_engine: c.engine, css_engine: c.cssEngine, public: true, source_code: c.source}}})
      const what = `${c.engine}/${c.cssEngine}: ${c.source}\n→ ${r.status} ${r.text.slice(0, 300)}`
      if (r.status === 422) {
        outcomes.refused++
        expect(Object.keys(r.json), what).toEqual(['source_code'])
        expect(r.json.source_code[0], what).toEqual(expect.any(String))
        // The error's code frame (issue 30) quotes the app's own source, and only that: each of its
        // lines is a line of the source or the caret under it. The rest names no server path.
        const [message, ...frame] = r.json.source_code[0].split('\n')
        const sourceLines = new Set(c.source.split('\n'))
        for (const line of frame) {
          const quoted = /^[> ] *\d+ \| (.*)$/.exec(line)
          expect(quoted ? sourceLines.has(quoted[1]!) : /^ +\| [\t ]*\^$/.test(line), `${what}\nframe line: ${line}`).toBe(true)
        }
        const rest = JSON.stringify({...r.json, source_code: [message]})
        for (const leak of [markerDir, world.dataDir, 'svc-build-', 'node_modules', '/work/', '/etc/', '/proc/', ...FORBIDDEN]) expect(rest, what).not.toContain(leak)
        return
      }
      expect(r.status, what).toBe(201)
      outcomes.built++
      const build = await servedBuild(ctx(), r.json.id)
      for (const leak of FORBIDDEN) expect(build, what).not.toContain(leak)
    })
    // The matrix is wide (every form on every engine), and nearly all of it is refused outright.
    expect(all.length).toBeGreaterThan(600)
    expect(outcomes.refused).toBeGreaterThan(outcomes.built)
  })

  it('still builds what is legitimate: https:, data: and #fragment references, package imports, js and html as-is', async () => {
    const css = 'p { background: url(https://example.com/a.png); mask: url("data:image/svg+xml,%3Csvg%3E%3C/svg%3E"); filter: url(#f) }\n' +
      '@font-face { font-family: x; src: url(//example.com/x.woff2) format("woff2") }'
    for (const engine of STYLE_ENGINES) {
      const r = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: `ok ${engine}`, app_engine: engine, css_engine: 'tailwind', public: true, source_code: withStyle(engine, css)}}})
      expect(r.status, r.text).toBe(201)
      const build = await servedBuild(ctx(), r.json.id)
      expect(build).toContain('url(https://example.com/a.png)')
      expect(build).toContain('.p-4')
    }
    const react = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'ok react', app_engine: 'react', css_engine: 'none', public: true,
      source_code: `import {useState} from 'react'\nimport {createPortal} from 'react-dom'\nexport default function App() { const [n] = useState(1); return <p>{n}{String(!!createPortal)}</p> }\n`}}})
    expect(react.status, react.text).toBe(201)
    // js and html are stored and served as written: a file path in them is text the browser resolves on the app origin.
    const marker = join(markerDir, 'secret.css')
    for (const [engine, source] of [['js', `document.body.style.background = 'url(${marker}?inline)'`], ['html', `<!doctype html><style>p{background:url(${marker}?inline)}</style><p>x</p>`]]) {
      const r = await ctx().call('POST', '/svc/apps.json', {as: 'mallory', body: {app: {name: `as-is ${engine}`, app_engine: engine, css_engine: 'none', public: true, source_code: source}}})
      expect(r.status, r.text).toBe(201)
      const build = await servedBuild(ctx(), r.json.id)
      expect(build).toContain(`${marker}?inline`)
      for (const leak of FORBIDDEN) expect(build).not.toContain(leak)
    }
  })
})

// The second layer on its own: inside a compile worker process, the fs functions the compilers'
// JavaScript uses refuse every path outside the allow-list (here the worker module is loaded in a
// child process exactly as the pool forks it, and asked to read the marker every way).
it('a compile worker cannot read outside its allow-list, by any fs function or through a link', async () => {
  const {spawnSync} = await import('node:child_process')
  const {createRequire} = await import('node:module')
  const {pathToFileURL} = await import('node:url')
  const {symlinkSync} = await import('node:fs')
  const marker = join(markerDir, 'secret.txt')
  const linkDir = mkdtempSync(join(tmpdir(), 'svc-link-'))
  symlinkSync(marker, join(linkDir, 'link.txt'))
  const worker = pathToFileURL(join(import.meta.dirname, '../../src/compile/worker.ts')).href
  const jail = pathToFileURL(join(import.meta.dirname, '../../src/compile/fs-jail.ts')).href
  const script = `
    import fs from 'node:fs'
    import {readFile} from 'node:fs/promises'
    import {readFileSync as named} from 'node:fs'
    await import(${JSON.stringify(worker)})
    const {allowReads} = await import(${JSON.stringify(jail)})
    allowReads(${JSON.stringify(linkDir)})
    const m = ${JSON.stringify(marker)}
    const attempts = {
      readFileSync: () => fs.readFileSync(m, 'utf8'),
      named: () => named(m, 'utf8'),
      promisesReadFile: () => readFile(m, 'utf8'),
      fsPromises: () => fs.promises.readFile(new URL('file://' + m)),
      callback: () => new Promise((ok, no) => fs.readFile(Buffer.from(m), (e, d) => (e ? no(e) : ok(d)))),
      openSync: () => fs.readFileSync(fs.openSync(m, 'r')),
      stream: () => new Promise((ok, no) => fs.createReadStream(m).on('data', ok).on('error', no)),
      readdir: () => fs.readdirSync(${JSON.stringify(markerDir)}),
      copy: () => fs.copyFileSync(m, ${JSON.stringify(join(linkDir, 'copy.txt'))}),
      relative: () => fs.readFileSync('../'.repeat(20) + m.slice(1)),
      link: () => fs.readFileSync(${JSON.stringify(join(linkDir, 'link.txt'))}, 'utf8'),
      passwd: () => fs.readFileSync('/etc/passwd', 'utf8'),
      environ: () => fs.readFileSync('/proc/self/environ', 'utf8'),
    }
    const out = {}
    for (const [name, attempt] of Object.entries(attempts)) {
      try { out[name] = 'READ ' + String(await attempt()).slice(0, 80) } catch (e) { out[name] = e.code }
    }
    out.packages = fs.readFileSync(${JSON.stringify(join(import.meta.dirname, '../../node_modules/vite/package.json'))}, 'utf8').includes('"name": "vite"')
    console.log(JSON.stringify(out))
    process.exit(0)
  `
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  const run = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {encoding: 'utf8', timeout: 120_000})
  rmSync(linkDir, {recursive: true, force: true})
  expect(run.stdout, run.stderr).not.toContain(SECRET)
  const out = JSON.parse(run.stdout.trim().split('\n').pop()!)
  const {packages, ...refused} = out
  expect(packages).toBe(true)
  expect(Object.keys(refused).length).toBe(13)
  for (const [name, code] of Object.entries(refused)) expect(code, name).toBe('EACCES')
})
