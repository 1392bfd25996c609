// The journal under N instances (PostgreSQL): a sequence number is handed out at insert, not at
// commit, so without care a reader resuming after bookmark N misses an entry numbered below N that
// commits later. The bookmark is drawn as the transaction commits, under a transaction lock (a
// deferred trigger: src/store/migrations/journal.ts). Two instances (two stores over one database) write records
// concurrently while a reader follows the journal from its last bookmark: it must see every entry.
import {describe, expect, it} from 'vitest'
import {pg} from '../helpers/pg.js'
import {createWorld} from '../helpers/world.js'

describe.skipIf(!pg)('the journal read by bookmark under two PostgreSQL instances', () => {
  it('a reader that resumes from its last bookmark never misses an entry that commits later with a smaller number', async () => {
    const world = await createWorld({accounts: ['acme'], users: [{login: 'admin', role: 'admin'}]})
    const second = await world.reopen()
    try {
      const acme = world.accounts.acme!
      const db = await world.store.dbs.create(acme, {name: 'Busy', code: 'busy', app_id: null, schema: null, public_methods: {}, fields: {}} as never)
      const start = (await world.store.journal.after(0, 1000)).at(-1)?.seq ?? 0
      let writing = true
      const seen: number[] = []
      const reader = (async () => {
        let last = start
        for (;;) {
          const done = !writing
          const batch = await world.store.journal.after(last, 200)
          for (const e of batch) seen.push(e.seq)
          if (batch.length) last = batch[batch.length - 1]!.seq
          else if (done) return
        }
      })()
      const writer = async (instance: typeof second, n: number, w: number) => {
        for (let i = 0; i < n; i++) await instance.dbs.createRecord(acme, db.id, {tableName: null, data: {w, i} as never, index: {}})
      }
      // 2 instances × 8 writers each, 25 records apiece: 400 entries committed in parallel.
      await Promise.all([0, 1].flatMap((k) => Array.from({length: 8}, (_, w) => writer(k ? second : world.store, 25, k * 8 + w))))
      writing = false
      await reader
      const all = (await world.store.journal.after(start, 10_000)).map((e) => e.seq)
      expect(all).toHaveLength(400)
      expect(seen).toEqual(all) // every entry, each once, in order
    } finally {
      await second.close()
      await world.close()
    }
  })
})
