// The console is a client of the API through the typed client (ARCHITECTURE.md "Clients of the
// API"), in one idiom (issue 38): only console/src/lib/client.js reaches the network, through
// createClient; screens call operations by id (`svc.listApps()`); every editor's load/If-Match/412
// is one module (lib/editable.svelte.js); the code editor is loaded only by the editors.
import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '../../console/src')
const sources = (dir: string): string[] => readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
  e.isDirectory() ? sources(join(dir, e.name)) : /\.(js|ts|svelte)$/.test(e.name) ? [join(dir, e.name)] : [])
const rel = (f: string) => relative(ROOT, f)
const text = (f: string) => readFileSync(f, 'utf8')

describe('console API calls', () => {
  it('go through the typed client: no fetch or XMLHttpRequest outside lib/client.js, which builds createClient', () => {
    const offenders = sources(ROOT).filter((f) => rel(f) !== 'lib/client.js' && /\bfetch\s*\(|XMLHttpRequest|new\s+EventSource/.test(text(f)))
    expect(offenders).toEqual([])
    const client = text(join(ROOT, 'lib/client.js'))
    expect(client).toMatch(/import \{createClient\} from '..\/..\/..\/src\/sdk.ts'/)
    // One network call, the backend under both clients: the page's (its cookie) and the anonymous visitor's (none).
    expect(client.match(/await fetch\(/g)).toHaveLength(1)
    expect(client.match(/createClient\(\{backend/g)).toHaveLength(2)
  })

  it('speaks one idiom: no raw api(method, path), no call.js, no svc.raw outside lib/client.js', () => {
    const found = sources(ROOT).flatMap((f) => {
      const t = text(f)
      return [
        ...(/(^|[^.\w])api\(/m.test(t) ? [`${rel(f)}: api(`] : []),
        ...(/call\.js|callWithEtag/.test(t) ? [`${rel(f)}: call.js`] : []),
        ...(rel(f) !== 'lib/client.js' && /\.raw\(/.test(t) ? [`${rel(f)}: .raw(`] : []),
      ]
    })
    expect(found).toEqual([])
  })

  it('no screen writes an API path by hand (the overview finds the journal\'s operation by its fixed path)', () => {
    // (A public method's address shown to the user, /svc/db/<code>/list, is text, not a call.)
    const paths = sources(ROOT).filter((f) => rel(f) !== 'lib/history.js' && /['"`]\/(svc|toolkit|account|connect)\/[^'"`]*\.json/.test(text(f)))
    expect(paths).toEqual([])
  })

  it('every editor uses the one editable-resource module: the 412 handling is written once', () => {
    const keepMine = sources(ROOT).filter((f) => /function keepMine|keepMine\s*=\s*\(/.test(text(f))).map(rel)
    expect(keepMine).toEqual(['lib/editable.svelte.js'])
    for (const editor of ['apps/AppEditor.svelte', 'prompts/PromptEditor.svelte', 'db/RecordEditor.svelte', 'db/SchemaEditor.svelte', 'db/PublicMethods.svelte', 'dashboards/LayoutEditor.svelte']) {
      expect(text(join(ROOT, editor)), editor).toMatch(/new Editable\(/)
      expect(text(join(ROOT, editor)), editor).not.toMatch(/'if-match'/i)
    }
  })

  it('the code editor (CodeMirror) is imported only by console/src/code, and loaded there on demand', () => {
    const importers = sources(ROOT).filter((f) => /from '@codemirror\/|import\('@codemirror\//.test(text(f))).map(rel).sort()
    expect(importers).toEqual(['code/codemirror.js', 'code/languages.js'])
    expect(text(join(ROOT, 'code/CodeEditor.svelte'))).toMatch(/import\('\.\/codemirror\.js'\)/)
    expect(sources(ROOT).filter((f) => /from '\.\/codemirror\.js'|from '\.\.\/code\/codemirror\.js'/.test(text(f)))).toEqual([])
  })
})
