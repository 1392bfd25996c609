import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {APP_ENGINES, CSS_ENGINES, engineSpec} from '../../src/engines/index.js'

const ROOT = join(import.meta.dirname, '..', '..')
const SRC = join(ROOT, 'src')
const CONSOLE = join(ROOT, 'console', 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : /\.(ts|tsx|js|mjs|svelte)$/.test(name) ? [path] : []
  })
}

/** The code of a file without its comments (a comment may say which engine a rule is about). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')

/**
 * What naming an engine looks like in code: the name of an engine or of its packages as a word
 * (`'svelte'`, `@vitejs/plugin-react`, `tailwindCompile`), and the two engines whose names are
 * also common words (`js`, `html`) only where they are compared with or used as an engine.
 */
function engineWords(): RegExp[] {
  const words = new Set<string>()
  for (const name of APP_ENGINES) {
    const spec = engineSpec(name)
    if (!['js', 'html'].includes(name)) words.add(name)
    for (const pkg of spec.packages) if (!['vite', 'esbuild'].includes(pkg)) words.add(pkg.replace(/^@[^/]+\//, '').replace(/^plugin-|^vite-plugin-/, ''))
    for (const lib of spec.imports) words.add(lib.replace('/*', ''))
    if (spec.game) words.add(spec.game.lib.name.split('.')[0]!)
  }
  for (const name of CSS_ENGINES) if (name !== 'none') words.add(name.split('_')[0]!)
  const escaped = [...words].map((w) => w.replace(/[.*+?^${}()|[\]\\@]/g, '\\$&'))
  return [
    new RegExp(`(^|[^a-z])(${escaped.join('|')})`, 'i'),
    /engine\w*\s*[!=]==?\s*['"`](js|html|none)['"`]|['"`](js|html|none)['"`]\s*[!=]==?\s*\w*engine/i,
    /\b(app_engine|css_engine|engine)\s*:\s*['"`](js|html)['"`]/i,
    // A list of engines tested against one: `['js', 'html'].includes(app.app_engine)`.
    /['"`](js|html|none)['"`]\s*\][^\n]*\.includes\([^)]*engine/i,
  ]
}

/**
 * The console's code as the scan reads it: the console is itself written in Svelte, so its own
 * framework (imports of `svelte`, `svelte/…`, `*.svelte` and `*.svelte.js` modules, static or
 * lazy, its `<svelte:window>` elements and `SvelteSet`/`SvelteMap`) is not an engine being named; HTML comments go like code
 * comments. The rest — a select of engines, a test of `app_engine`, an engine's name in a message —
 * is held to the same rule as src/: engine facts come from `GET /svc/engines.json`.
 */
const consoleCode = (text: string) => code(text.replace(/<!--[\s\S]*?-->/g, ''))
  .replace(/^\s*import\b.*from\s+'(svelte(\/[^']*)?|[^']*\.svelte(\.js)?)'.*$/gm, '')
  .replace(/^\s*import\s+'[^']*\.svelte(\.js)?'.*$/gm, '')
  .replace(/import\('[^']*\.svelte(\.js)?'\)/g, 'import(…)')
  .replace(/<\/?svelte:\w+/g, '<…').replace(/\bSvelte(Set|Map|Date|URL)\b/g, '…')

/**
 * The code editor's table of languages (console/src/code/languages.js) maps the registry's
 * `language` values (`svelte+ts`, `vue+ts`, …) to editor modes: languages, not engines.
 */
const CONSOLE_LANGUAGES = join('console', 'src', 'code', 'languages.js')

describe('the engine registry is the only place in the code that names an engine', () => {
  it('no file of the web console names an engine: it takes them from the API (GET /svc/engines.json)', () => {
    const patterns = engineWords()
    const found: string[] = []
    for (const path of files(CONSOLE)) {
      const rel = relative(ROOT, path)
      if (rel === CONSOLE_LANGUAGES) continue
      consoleCode(readFileSync(path, 'utf8')).split('\n').forEach((line, i) => {
        if (patterns.some((p) => p.test(line))) found.push(`${rel}:${i + 1}: ${line.trim().slice(0, 160)}`)
      })
    }
    expect(found).toEqual([])
  })

  it('no source file outside src/engines/ names an app engine, a CSS engine or their packages', () => {
    const patterns = engineWords()
    const found: string[] = []
    for (const path of files(SRC)) {
      const rel = relative(ROOT, path)
      if (rel.startsWith(join('src', 'engines'))) continue
      code(readFileSync(path, 'utf8')).split('\n').forEach((line, i) => {
        if (patterns.some((p) => p.test(line))) found.push(`${rel}:${i + 1}: ${line.trim().slice(0, 160)}`)
      })
    }
    expect(found).toEqual([])
  })

  it('the words it looks for are the registry\'s (a new engine is covered without editing this test)', () => {
    const [words] = engineWords()
    for (const probe of ['svelte', 'vue', 'react', 'kaboom', 'kaplay', 'phaser', 'tailwind', '@sveltejs/vite-plugin-svelte']) {
      expect(words!.test(`import x from '${probe}'`), probe).toBe(true)
    }
    expect(words!.test('const x = 1')).toBe(false)
  })
})
