import {afterAll, expect, it} from 'vitest'
import {svc, svcProcess, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {pg} from '../helpers/pg.js'

// Store-specific: a server and embedded CLI processes over one SQLite data dir, skipped in the PostgreSQL half (instances over one PostgreSQL database: test/cluster/instances.test.ts).

let server: ServeProcess | undefined
afterAll(async () => {
  await server?.stop()
})

it.skipIf(pg)('the server and embedded CLI processes write one data dir at once: no lock error, no lost update', async () => {
  const data = tempDir()
  const admin = (await svc(['admin', 'user', 'add', 'root', '--role', 'admin', '--data', data, '--json'])).json
  server = await svcServe(data, ['--quiet'])
  const viaHttp = Array.from({length: 40}, (_, i) =>
    fetch(`${server!.url}/account/set_field.json?key=account.settings.modules&action_type=add&value=http_${i}`, {
      method: 'POST', headers: {authorization: `Bearer ${admin.token}`},
    }).then(async (r) => ({status: r.status, body: await r.text()})))
  // Separate processes (the point of this test), not in-process runs.
  const viaCli = Array.from({length: 4}, (_, i) => svcProcess(['admin', 'module', 'enable', `cli_${i}`, '--data', data, '--json']))
  const [http, cli] = await Promise.all([Promise.all(viaHttp), Promise.all(viaCli)])
  for (const r of http) expect(r.status, r.body).toBe(200)
  for (const r of cli) {
    expect(r.code, r.stderr + r.stdout).toBe(0)
    expect(r.stdout + r.stderr).not.toMatch(/locked|busy/i)
  }
  const me = await (await fetch(`${server.url}/svc/me.json`, {headers: {authorization: `Bearer ${admin.token}`}})).json()
  const modules: string[] = me.account.modules
  expect(modules).toHaveLength(44)
  for (let i = 0; i < 40; i++) expect(modules).toContain(`http_${i}`)
  for (let i = 0; i < 4; i++) expect(modules).toContain(`cli_${i}`)
})
