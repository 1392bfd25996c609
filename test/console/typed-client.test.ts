// The console is a client of the API through the typed client (ARCHITECTURE.md "Clients of the
// API"): only console/src/api.js reaches the network, and it does so through createClient.
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '../../console/src')
const sources = (dir: string): string[] => readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
  e.isDirectory() ? sources(join(dir, e.name)) : /\.(js|svelte)$/.test(e.name) ? [join(dir, e.name)] : [])

describe('console API calls', () => {
  it('go through the typed client: no fetch or XMLHttpRequest outside api.js, which builds createClient', () => {
    const offenders = sources(ROOT).filter((f) => !f.endsWith('/api.js') && /\bfetch\s*\(|XMLHttpRequest|new\s+EventSource/.test(readFileSync(f, 'utf8')))
    expect(offenders).toEqual([])
    const api = readFileSync(join(ROOT, 'api.js'), 'utf8')
    expect(api).toMatch(/import \{createClient\} from '..\/..\/src\/sdk.ts'/)
    // Two network calls, each a backend under the client: the page's (its cookie) and the anonymous visitor's (none).
    expect(api.match(/fetch\(path, \{\.\.\.init/g)).toHaveLength(2)
    expect(api.match(/createClient\(\{backend/g)).toHaveLength(2)
  })

  it('the data screens call operations by id, never a hand-written API path', () => {
    const db = sources(join(ROOT, 'db')).concat(join(ROOT, 'Databases.svelte'))
    // (A public method's address shown to the user, /svc/db/<code>/list, is text, not a call.)
    const paths = db.filter((f) => /['"`]\/(svc|toolkit|account|connect)\/[^'"`]*\.json/.test(readFileSync(f, 'utf8')))
    expect(paths).toEqual([])
  })
})
