// Issue 24 M4: one compile queue served first come, first served: a 0.1 s compile of one account
// waited 45 s behind 30 compiles of another. Compiles now take turns between accounts, and an
// account may have only `compile_queue_per_account` compiles waiting (then 429 with Retry-After).
// A real `svc serve` with one compile worker and a queue cap of 3: acme fills its queue with slow
// (but legitimate) compiles; mallory's compile, sent after, is answered before acme's queue has
// drained. Ordering is asserted, never clock time.
import {afterAll, beforeAll, expect, it, vi} from 'vitest'
import {svcServe, type ServeProcess} from '../helpers/cli.js'
import {createWorld, type World} from '../helpers/world.js'

vi.setConfig({testTimeout: 300_000})

const CAP = 3
let world: World
let server: ServeProcess

/** A legitimate svelte app, big enough to take a while to compile; `tag` makes every source new (no cache hit). */
const slowApp = (tag: string) => `<script>\n  let n = $state(0)\n</script>\n<!-- ${tag} -->\n` +
  Array.from({length: 1000}, (_, i) => `<p class="c${i}" title="t${i}">line ${i} {n + ${i}}</p>`).join('\n') + '\n<button onclick={() => n++}>+</button>\n'

const create = (as: string, tag: string, source = slowApp(tag)) =>
  fetch(`${server.url}/svc/apps.json`, {
    method: 'POST',
    headers: {authorization: `Bearer ${world.users[as]!.token}`, 'content-type': 'application/json'},
    body: JSON.stringify({app: {name: tag, app_engine: 'svelte', css_engine: 'none', source_code: source}}),
  })

beforeAll(async () => {
  world = await createWorld()
  server = await svcServe(world.dataDir, ['--quiet', '--quota', 'compile_workers=1', '--quota', `compile_queue_per_account=${CAP}`,
    ...(world.databaseUrl ? ['--database-url', world.databaseUrl] : [])])
}, 120_000)

afterAll(async () => {
  await server?.stop()
  await world?.close()
})

it('a second account\'s compile is answered before the first account\'s queue drains; past the cap, 429 with Retry-After', async () => {
  // Warm the worker (its first compile loads Vite), so queued compiles are all alike.
  expect((await create('admin', 'warm')).status).toBe(201)

  const settled: string[] = []
  const pending: Promise<Response>[] = []
  const send = (as: string, tag: string) => {
    const p = create(as, tag)
    pending.push(p)
    void p.then((r) => settled.push(`${tag}:${r.status}`))
    return p
  }
  // acme sends a burst, more than one running and CAP waiting: the rest are refused at once.
  let firstRefusal!: (r: Response) => void
  const refusedPromise = new Promise<Response>((resolve) => (firstRefusal = resolve))
  for (let i = 0; i < 2 * CAP + 4; i++) void send('admin', `acme-${i}`).then((r) => r.status === 429 && firstRefusal(r.clone()))
  const refused = await refusedPromise
  const body = await refused.json()
  expect(body.error).toMatch(/too many app compiles waiting; at most 3 may wait per account/)
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)

  // mallory's compile, sent while acme has CAP compiles waiting: not refused, and answered first.
  const acmeWaiting = () => pending.length - settled.length
  const mallory = await create('mallory', 'mallory-1')
  const acmeStillWaiting = acmeWaiting()
  expect(mallory.status, await mallory.clone().text()).toBe(201)
  // First come, first served would answer mallory only after every acme compile: none left waiting.
  expect(acmeStillWaiting, `answered so far: ${settled.join(', ')}`).toBeGreaterThanOrEqual(1)

  // Everything acme queued is still compiled (201), nothing else refused but the probes past the cap.
  const answers = await Promise.all(pending)
  const statuses = answers.map((r) => r.status)
  expect(statuses.filter((s) => s !== 201 && s !== 429)).toEqual([])
  expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(CAP + 1)
  // The server lists every compiled app of acme.
  const list = await (await fetch(`${server.url}/svc/apps.json`, {headers: {authorization: `Bearer ${world.users.admin!.token}`}})).json()
  expect(list.length).toBe(1 + statuses.filter((s) => s === 201).length)
})
