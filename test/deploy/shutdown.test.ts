// `svc serve` stops on SIGTERM and SIGINT (systemd, Ctrl-C) once in-flight requests finish — also
// after it has rendered prompts and compiled apps, whose worker threads and processes must not keep
// it alive (a rendered prompt once left a render thread's port open: the server never exited).
import {afterAll, describe, expect, it} from 'vitest'
import {svc, svcServe} from '../helpers/cli.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

describe('svc serve shutdown', () => {
  const drops: (() => Promise<void>)[] = []
  afterAll(async () => {
    await Promise.all(drops.map((drop) => drop()))
  })

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits 0 on ${signal} after rendering a prompt and compiling an app`, async () => {
      const data = tempDir()
      const env: Record<string, string> = {}
      if (pg) {
        const db = await createTestDatabase()
        drops.push(db.drop)
        env.SVC_DATABASE_URL = db.url
      }
      const user = await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'], {env})
      expect(user.code, user.stderr).toBe(0)
      const server = await svcServe(data, [], {env})
      const headers = {authorization: `Bearer ${user.json.token}`, 'content-type': 'application/json'}
      const call = (method: string, path: string, body?: unknown) =>
        fetch(server.url + path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)})
      expect((await call('POST', '/svc/prompts.json', {prompt: {name: 'Hi', code: 'hi', content: 'Hi {{ who }}'}})).status).toBe(201)
      const rendered = await call('GET', '/svc/prompt/hi.md?who=Ada')
      expect(await rendered.text()).toBe('Hi Ada')
      const app = await call('POST', '/svc/apps.json', {app: {name: 'Count', app_engine: 'svelte', css_engine: 'none',
        source_code: '<script>let n = $state(0)</script><button onclick={() => n++}>{n}</button>'}})
      expect(app.status, await app.clone().text()).toBe(201)
      expect(await server.stop(signal)).toBe(0)
      expect(server.output()).toContain(`${signal}: finishing in-flight requests and closing the database`)
    }, 120_000)
  }
})
