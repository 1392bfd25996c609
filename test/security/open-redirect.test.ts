// Issue 40 N6: `next` is normalised once and checked as normalised. Each payload of the attack, sent
// anonymously to `/_svc/signin` and `/_svc/check` of an app origin and to the console sign-in,
// comes back as a path of that origin, never `//evil.example/x`.
import {expect, it} from 'vitest'
import {safeNext} from '../../src/http/app-origin/routes.js'
import {describeBothTransports, type Ctx} from '../helpers/scenarios.js'

const PAYLOADS = ['/.//evil.example/x', '/..//evil.example/x', '/a/..//evil.example/x', '/%2e//evil.example/x', '/%2E%2E//evil.example/x',
  '/a/b/../..//evil.example/x', '/././/evil.example/x', '/%2e/%2e//evil.example/x', '//evil.example/x', '/\\evil.example/x', 'https://evil.example/x']

const appHost = (ctx: Ctx, label: string) => {
  const port = new URL(ctx.transport.origin).port
  return `http://${label}.localhost${port ? `:${port}` : ''}`
}

/** Where a Location leads from `from` (the host a browser would go to). */
const hostOf = (location: string, from: string) => new URL(location, from).host

describeBothTransports('next after a sign-in', undefined, (ctx) => {
  it('setup: a public app', async () => {
    const r = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Dogs', url_code: 'dogs', app_engine: 'html', css_engine: 'none',
      public: true, source_code: '<p>dogs</p>'}}})
    expect(r.status, r.text).toBe(201)
  })

  it('/_svc/signin and /_svc/check of an app origin never send anyone to another host', async () => {
    const origin = appHost(ctx(), 'dogs')
    for (const next of PAYLOADS) {
      for (const route of ['/_svc/signin?token=x&next=', '/_svc/check?next=']) {
        const r = await ctx().transport.fetch(`${origin}${route}${encodeURIComponent(next)}`, {redirect: 'manual'})
        const location = r.headers.get('location')
        if (location === null) continue // the "sign-in not kept" page
        expect(location, `${route}${next}`).not.toMatch(/^\/\//)
        expect(hostOf(location, origin), `${route}${next} → ${location}`).toBe(new URL(origin).host)
        expect(location, `${route}${next}`).toBe('/') // a bad token goes to next itself: here the fallback
      }
    }
  })

  it('the console sign-in page keeps no such next', async () => {
    for (const next of PAYLOADS) {
      const page = await ctx().transport.fetch(`/svc/login?next=${encodeURIComponent(next)}`)
      const value = /name="next" value="([^"]*)"/.exec(await page.text())?.[1]
      expect(value, next).toBeDefined()
      expect(value!.startsWith('//'), `${next} → ${value}`).toBe(false)
    }
  })
})

it('safeNext normalises once, then checks what it returns', () => {
  for (const next of PAYLOADS) {
    const out = safeNext(next)
    expect(out, next).toBe('/')
    expect(new URL(out, 'http://svc.test').host).toBe('svc.test')
  }
  // Ordinary paths keep working, normalised.
  expect(safeNext('/a/./b/../c?x=1#y')).toBe('/a/c?x=1#y')
  expect(safeNext('/a//b')).toBe('/a//b')
  expect(safeNext('/%2e%2e/x')).toBe('/x')
  expect(safeNext('/apps/%2F%2Fevil')).toBe('/apps/%2F%2Fevil')
})
