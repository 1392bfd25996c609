/**
 * Compiles waiting for a worker: one queue per account, the accounts served in turns. Pure (no
 * clock, no processes): the pool (src/services/compiles/compile-pool.ts) asks it which job a free worker takes.
 *
 * - An account that has compiles waiting takes its turn in a ring: once served, it goes to the
 *   back while it still has compiles waiting.
 * - An account with nothing waiting and nothing running goes ahead of the ring (behind others
 *   that came the same way, first come first served): a quiet account's compile waits for at most
 *   one compile per worker, however many busy accounts keep their queues full (issue 40 N8).
 * - Among the accounts, those with the fewest compiles running go first: one account does not
 *   take every worker while another waits.
 */
export interface QueuedJob {
  /** Whose compile it is: the unit of fairness. */
  account: string
}

/** A quiet account's place: ahead of every account of the ring (whose places are counters from 1). */
const AHEAD = -Number.MAX_SAFE_INTEGER

export class FairQueue<J extends QueuedJob> {
  private readonly waiting = new Map<string, J[]>()
  /** Each waiting account's place in the turn order: the smallest goes first. */
  private readonly place = new Map<string, number>()
  private turns = 0
  private arrivals = 0

  /** Compiles waiting, all accounts together. */
  get size(): number {
    let n = 0
    for (const list of this.waiting.values()) n += list.length
    return n
  }

  /** Compiles `account` has waiting. */
  count(account: string): number {
    return this.waiting.get(account)?.length ?? 0
  }

  /** Queues `job`; `running` is how many compiles its account has running now. */
  push(job: J, running: number): void {
    const list = this.waiting.get(job.account)
    if (list) {
      list.push(job)
      return
    }
    this.waiting.set(job.account, [job])
    // Nothing waiting: a quiet account (nothing running either) goes ahead; one with a compile running joins the back.
    this.place.set(job.account, running === 0 ? AHEAD + ++this.arrivals : ++this.turns)
  }

  /** The job a free worker should take next (left queued until `take`), given each account's compiles running. */
  next(running: (account: string) => number): J | undefined {
    let best: string | undefined
    let bestRank: [number, number] = [Infinity, Infinity]
    for (const account of this.waiting.keys()) {
      const rank: [number, number] = [running(account), this.place.get(account)!]
      if (rank[0] < bestRank[0] || (rank[0] === bestRank[0] && rank[1] < bestRank[1])) [best, bestRank] = [account, rank]
    }
    return best === undefined ? undefined : this.waiting.get(best)![0]
  }

  /** Takes `job` (the one `next` gave) off the queue; its account goes to the back of the ring. */
  take(job: J): void {
    const list = this.waiting.get(job.account)
    const index = list?.indexOf(job) ?? -1
    if (!list || index < 0) return
    list.splice(index, 1)
    if (list.length) this.place.set(job.account, ++this.turns)
    else {
      this.waiting.delete(job.account)
      this.place.delete(job.account)
    }
  }

  /** Every waiting job, oldest account first; the queue is left empty. */
  drain(): J[] {
    const all = [...this.waiting.values()].flat()
    this.waiting.clear()
    this.place.clear()
    return all
  }
}
