// Issue 40 N8: a quiet account's compile waited behind busy accounts (p50 0.15 s quiet → 4.6 /
// 5.4 / 7.5 s with 1 / 2 / 3 accounts keeping the queue full): the pool served accounts in the
// order they were last served, so an account that had compiled a minute ago waited for a turn
// of every busy account. The order of the pool's queue (src/compile/fair-queue.ts), step by step;
// test/security/compile-fairness.test.ts shows it through a real server.
import {describe, expect, it} from 'vitest'
import {FairQueue} from '../../src/compile/fair-queue.js'

interface Job {
  account: string
  name: string
}

/** The order `workers` workers start the queued jobs in, each job finishing in turn (oldest first). */
function runOrder(queue: FairQueue<Job>, workers: number, running: Job[] = []): string[] {
  const order: string[] = []
  const busy = [...running]
  const count = (account: string) => busy.filter((j) => j.account === account).length
  for (;;) {
    while (busy.length < workers) {
      const job = queue.next(count)
      if (!job) break
      queue.take(job)
      busy.push(job)
      order.push(job.name)
    }
    if (!busy.length) return order
    busy.shift() // the oldest running compile ends
  }
}

const fill = (queue: FairQueue<Job>, account: string, n: number, running = 0) => {
  for (let i = 1; i <= n; i++) queue.push({account, name: `${account}${i}`}, running)
}

describe('the compile queue', () => {
  it('busy accounts take turns', () => {
    const queue = new FairQueue<Job>()
    fill(queue, 'a', 3)
    fill(queue, 'b', 3)
    fill(queue, 'c', 2)
    expect(runOrder(queue, 1)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3'])
  })

  it('an account with nothing queued or running is next, however many busy accounts wait, and whenever it last compiled', () => {
    for (const busyAccounts of [1, 2, 3]) {
      for (const workers of [1, 2]) {
        const queue = new FairQueue<Job>()
        const running: Job[] = []
        // The quiet account compiled before (served long ago and recently, both): it makes no difference.
        queue.push({account: 'quiet', name: 'quiet0'}, 0)
        const earlier = queue.next(() => 0)!
        queue.take(earlier)
        const busy = ['a', 'b', 'c'].slice(0, busyAccounts)
        for (const account of busy) fill(queue, account, 8)
        // The busy accounts have been compiling a while (each worker started and ended a few of theirs) and keep every worker busy.
        const count = (acc: string) => running.filter((j) => j.account === acc).length
        for (let step = 0; step < 3 * workers + busyAccounts; step++) {
          if (running.length === workers) running.shift()
          const job = queue.next(count)!
          queue.take(job)
          running.push(job)
        }
        queue.push({account: 'quiet', name: 'quiet1'}, 0)
        const order = runOrder(queue, workers, running)
        // The first worker to come free takes it: it waited for one compile (of the `workers` running).
        expect(order[0], `${busyAccounts} busy, ${workers} workers: ${order.join(' ')}`).toBe('quiet1')
      }
    }
  })

  it('quiet accounts go first come, first served; then the turns go on where they were', () => {
    const queue = new FairQueue<Job>()
    fill(queue, 'a', 3)
    fill(queue, 'b', 3)
    queue.take(queue.next(() => 0)!) // a1 starts and ends
    queue.take(queue.next(() => 0)!) // b1 starts and ends
    queue.push({account: 'q', name: 'q1'}, 0)
    queue.push({account: 'r', name: 'r1'}, 0)
    expect(runOrder(queue, 1)).toEqual(['q1', 'r1', 'a2', 'b2', 'a3', 'b3'])
  })

  it('an account with a compile running joins the back of the turns, and the fewest running go first', () => {
    const queue = new FairQueue<Job>()
    fill(queue, 'a', 2)
    fill(queue, 'b', 2)
    queue.push({account: 'c', name: 'c1'}, 1) // c has one running: not quiet
    expect(runOrder(queue, 1)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2'])
    const two = new FairQueue<Job>()
    fill(two, 'a', 3)
    fill(two, 'b', 1)
    // Two workers, a already running one: b (none running) goes before a's turn.
    expect(runOrder(two, 2, [{account: 'a', name: 'a0'}])).toEqual(['b1', 'a1', 'a2', 'a3'])
  })

  it('counts per account and drains everything', () => {
    const queue = new FairQueue<Job>()
    fill(queue, 'a', 3)
    fill(queue, 'b', 1)
    expect([queue.size, queue.count('a'), queue.count('b'), queue.count('z')]).toEqual([4, 3, 1, 0])
    expect(queue.drain().map((j) => j.name).sort()).toEqual(['a1', 'a2', 'a3', 'b1'])
    expect(queue.size).toBe(0)
    expect(queue.next(() => 0)).toBeUndefined()
  })
})
