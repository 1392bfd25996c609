// Issue 24 M4: one compile queue served first come, first served: a 0.1 s compile of one account
// waited 45 s behind 30 compiles of another. Compiles now take turns between accounts, and an
// account may have only `compile_queue_per_account` compiles waiting (then 429 with Retry-After).
// A real `svc serve` with one compile worker and a queue cap of 3: acme fills its queue with slow
// (but legitimate) compiles; mallory's compile, sent after, is answered before acme's queue has
// drained. Ordering is asserted, never clock time.
// Issue 40 N8: the turns went by when each account was last served, so an account that had
// compiled before waited for a turn of every busy account (4.6 / 5.4 / 7.5 s with 1 / 2 / 3 busy
// accounts). Now an account with nothing queued or running goes ahead of the turns.
import {afterAll, beforeAll, expect, it, vi} from 'vitest'
import {svcServe, type ServeProcess} from '../helpers/cli.js'
import {createWorld, type World} from '../helpers/world.js'

vi.setConfig({testTimeout: 300_000})

const CAP = 3
let world: World
let server: ServeProcess

/** A legitimate svelte app, big enough to take a while to compile; `tag` makes every source new (no cache hit). */
const slowApp = (tag: string, lines = 1000) => `<script>\n  let n = $state(0)\n</script>\n<!-- ${tag} -->\n` +
  Array.from({length: lines}, (_, i) => `<p class="c${i}" title="t${i}">line ${i} {n + ${i}}</p>`).join('\n') + '\n<button onclick={() => n++}>+</button>\n'

const create = (as: string, tag: string, source = slowApp(tag)) =>
  fetch(`${server.url}/svc/apps.json`, {
    method: 'POST',
    headers: {authorization: `Bearer ${world.users[as]!.token}`, 'content-type': 'application/json'},
    body: JSON.stringify({app: {name: tag, app_engine: 'svelte', css_engine: 'none', source_code: source}}),
  })

/** acme (admin) and other (mallory) as in the default world; busy accounts b and c; a quiet account q. */
const SEED = {
  accounts: ['acme', 'other', 'b', 'c', 'q'],
  users: [{login: 'admin', role: 'admin' as const}, {login: 'mallory', account: 'other', role: 'admin' as const},
    {login: 'bob', account: 'b', role: 'admin' as const}, {login: 'carol', account: 'c', role: 'admin' as const},
    {login: 'quinn', account: 'q', role: 'admin' as const}],
}

beforeAll(async () => {
  world = await createWorld(SEED)
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

it("a quiet account's compile is the next one a worker takes, while three busy accounts keep their queues full", async () => {
  const answered: string[] = []
  const pending: Promise<Response>[] = []
  const firstAnswer: Promise<void>[] = []
  /** Sends CAP + 2 compiles of `as`: CAP wait (one more may run), the rest are refused. Resolves at the 429: the queue is full. */
  const fillQueue = (as: string) => new Promise<void>((full) => {
    let served!: () => void
    firstAnswer.push(new Promise<void>((resolve) => (served = resolve)))
    for (let i = 0; i < CAP + 2; i++) {
      const p = create(as, `${as}-${i}`, slowApp(`${as}-${i}`, 400))
      pending.push(p)
      void p.then((r) => {
        if (r.status === 429) return full()
        answered.push(as)
        served()
      })
    }
  })
  // Three busy accounts, each with its queue full (every compile of theirs is new: no cache hit), and each served once.
  for (const as of ['admin', 'bob', 'carol']) await fillQueue(as)
  await Promise.all(firstAnswer)
  // The quiet account compiles, then at once again: it was served last of all, which put it behind every
  // busy account in the old order (one compile of each: three answers or more meanwhile).
  expect((await create('quinn', 'quinn-0', slowApp('quinn-0', 400))).status).toBe(201)
  const before = answered.length
  const quiet = await create('quinn', 'quinn-1', slowApp('quinn-1', 400))
  expect(quiet.status, await quiet.clone().text()).toBe(201)
  // One worker: the compile running when quinn's came in ended, then quinn's ran. (At most one more answer
  // may have been on its way back when quinn's was sent.)
  const between = answered.length - before
  expect(between, `answered meanwhile: ${answered.slice(before).join(', ')}`).toBeLessThanOrEqual(2)
  const statuses = (await Promise.all(pending)).map((r) => r.status)
  expect(statuses.filter((s) => s !== 201 && s !== 429)).toEqual([])
})
