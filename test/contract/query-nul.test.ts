// Issue 40 (low): a NUL in a query parameter is a 422 on every route of the contract, the three
// that take no input (the document, the reference and its files) included — and the document says so.
import {expect, it} from 'vitest'
import {ROUTES} from '../../src/core/contract/routes.js'
import {createWorld} from '../helpers/world.js'

it('the document lists a 422 for every operation of the contract, and the routes without input answer it', async () => {
  const world = await createWorld({accounts: ['acme'], users: [{login: 'admin', role: 'admin'}]})
  try {
    const res = await world.app.request('http://localhost/svc/openapi.json')
    const doc = (await res.json()) as {paths: Record<string, Record<string, {responses: Record<string, {content?: Record<string, {schema: {$ref?: string}}>}>}>>}
    // Pages (the console, sign-in, the app hand-over and app origins) are answered outside the contract's
    // validation and ignore their query: a NUL there is no 422, and they list none.
    const missing = Object.entries(ROUTES)
      .filter(([, route]) => !(route.tags ?? []).includes('pages'))
      .filter(([, route]) => !doc.paths[route.path.replace(/\{(\w+)\}/g, '{$1}')]?.[route.method]?.responses['422'])
      .map(([id]) => id)
    expect(missing).toEqual([])
    for (const [path, op] of [['/svc/openapi.json', 'get'], ['/svc/docs', 'get'], ['/svc/docs/{file}', 'get']] as const) {
      expect(doc.paths[path]![op]!.responses['422']!.content!['application/json']!.schema.$ref, path).toBe('#/components/schemas/FieldErrors')
    }
    for (const path of ['/svc/openapi.json?x=a%00', '/svc/docs?a%00=1', '/svc/docs/swagger-ui.css?v=%00']) {
      const r = await world.app.request(`http://localhost${path}`)
      expect(r.status, path).toBe(422)
      expect(Object.keys(await r.json()), path).toHaveLength(1)
    }
  } finally {
    await world.close()
  }
})
