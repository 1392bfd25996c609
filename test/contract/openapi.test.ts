import SwaggerParser from '@apidevtools/swagger-parser'
import {describe, expect, it} from 'vitest'
import {createApp} from '../../src/http/app.js'
import {createServices} from '../../src/services/index.js'
import type {Store} from '../../src/store/types.js'
import {contractProblems} from '../helpers/contract.js'
import {runScenarios} from '../helpers/scenarios.js'

const app = createApp({store: {} as Store, services: createServices({} as Store), systemPromptsDirs: []})
const get = (path: string) => app.request(`http://localhost${path}`)

/** A concrete path a Hono route pattern matches (`:id{[0-9]+\.json}` → `1.json`). */
function samplePath(pattern: string): string | null {
  const candidates = ['1.json', '1', 'x.md', 'x', 'app.0123456789abcdef.js']
  let out = ''
  let i = 0
  while (i < pattern.length) {
    if (pattern[i] !== ':') {
      out += pattern[i++]
      continue
    }
    let j = i + 1
    while (j < pattern.length && /[A-Za-z0-9_]/.test(pattern[j]!)) j++
    let regex = '[^/]+'
    if (pattern[j] === '{') {
      let depth = 0
      let k = j
      for (; k < pattern.length; k++) {
        if (pattern[k] === '{') depth++
        else if (pattern[k] === '}' && --depth === 0) break
      }
      regex = pattern.slice(j + 1, k)
      j = k + 1
    }
    const value = candidates.find((v) => new RegExp(`^(?:${regex})$`).test(v))
    if (value === undefined) return null
    out += value
    i = j
  }
  return out
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1, valid for an outside validator (swagger-parser), with the auth schemes', async () => {
    const res = await get('/svc/openapi.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const doc = await res.json()
    expect(doc.openapi).toBe('3.1.0')
    await SwaggerParser.validate(structuredClone(doc))
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['app_session', 'bearer', 'session'])
    expect(doc.components.securitySchemes.bearer).toMatchObject({type: 'http', scheme: 'bearer'})
    expect(doc.components.securitySchemes.session).toMatchObject({type: 'apiKey', in: 'cookie', name: 'svc_session'})
    // The parts outside /svc/*.json: public methods, app pages, the contract itself.
    expect(doc.paths['/svc/db/{db_code}/{method_name}'].post.security).toContainEqual({})
    expect(doc.paths['/a/{url_code}'].get.responses['302']).toBeDefined()
    expect(doc.paths['/svc/prompts/{id}.json'].patch.responses['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/FieldErrors')
  })

  it('is generated once and then served from memory', async () => {
    const a = await (await get('/svc/openapi.json')).text()
    const b = await (await get('/svc/openapi.json')).text()
    expect(b).toBe(a)
  })

  it('has every route the app serves (a route missing from it fails here)', async () => {
    const doc = await (await get('/svc/openapi.json')).json()
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([template, methods]) =>
      Object.keys(methods).map((method) => ({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
      })))
    const missing: string[] = []
    const seen = new Set<string>()
    for (const route of app.routes) {
      if (route.method === 'ALL' || seen.has(`${route.method} ${route.path}`)) continue
      seen.add(`${route.method} ${route.path}`)
      const sample = samplePath(route.path)
      if (sample === null || !operations.some((o) => o.method === route.method && o.pattern.test(sample))) missing.push(`${route.method} ${route.path}`)
    }
    expect(missing).toEqual([])
    expect(seen.size).toBeGreaterThan(60)
  })

  it('the checker catches an answer outside the document', async () => {
    const json = (body: unknown, status = 200, type = 'application/json; charset=utf-8') =>
      new Response(JSON.stringify(body), {status, headers: {'content-type': type}})
    expect(await contractProblems('GET', '/svc/me.json', json({id: 'not a number'}))).toEqual([expect.stringMatching(/^getMe 200: body does not match/)])
    expect(await contractProblems('GET', '/svc/dbs.json', json([], 200, 'application/json'))).toEqual(['content type "application/json" has no charset=utf-8'])
    expect(await contractProblems('DELETE', '/svc/dbs/1.json', json({}, 200))).toEqual(['deleteDb: status 200 is not in the document'])
    expect(await contractProblems('GET', '/svc/nothing-here', json({}, 200))).toEqual([expect.stringMatching(/^no operation in the document/)])
    expect(await contractProblems('GET', '/svc/nothing-here', json({error: 'not found'}, 404))).toEqual([])
  })
})

describe('the API reference at /svc/docs', () => {
  it('is Swagger UI served from the package (no CDN), reading /svc/openapi.json', async () => {
    const page = await get('/svc/docs')
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).not.toMatch(/https?:\/\//)
    for (const src of html.match(/(?:src|href)="([^"]+)"/g)!.map((m) => m.slice(m.indexOf('"') + 1, -1))) {
      const res = await get(src)
      expect(res.status, src).toBe(200)
      expect((await res.arrayBuffer()).byteLength, src).toBeGreaterThan(10)
    }
    expect(await (await get('/svc/docs/init.js')).text()).toContain("url: '/svc/openapi.json'")
    expect((await get('/svc/docs/package.json')).status).toBe(404)
    expect((await get('/svc/docs/..%2F..%2Fpackage.json')).status).toBe(404)
  })
})

runScenarios('contract endpoints', undefined, [
  {name: 'the document needs no login', method: 'GET', url: '/svc/openapi.json', as: null, expectedStatus: 200, expectedContent: {openapi: '3.1.0'}},
  {name: 'the reference needs no login', method: 'GET', url: '/svc/docs', as: null, expectedStatus: 200, expectedText: ['swagger-ui']},
  {
    name: 'a db answers JSON with its charset', method: 'GET', url: '/svc/dbs/1.json', expectedStatus: 200,
    expectedHeaders: {'content-type': 'application/json; charset=utf-8'},
    before: async (c) => void (await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'x'}}})),
  },
])
