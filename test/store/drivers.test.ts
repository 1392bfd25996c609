// The store's conformance scenarios (test/store/conformance.ts) over every driver in one run:
// SQLite always, PostgreSQL when a test cluster is there (SVC_TEST_DATABASE_URL, which
// scripts/pg-test-cluster.sh sets; CI always has one).
import {rmSync} from 'node:fs'
import {openStore, openStoreAt} from '../../src/store/index.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'
import {describeStore} from './conformance.js'

describeStore('SQLite', {
  async open() {
    const dir = tempDir()
    const store = openStore(dir)
    return {store, close: async () => {
      await store.close()
      rmSync(dir, {recursive: true, force: true})
    }}
  },
})

if (pg) {
  describeStore('PostgreSQL', {
    async open() {
      const db = await createTestDatabase()
      const dir = tempDir()
      const store = await openStoreAt({dataDir: dir, databaseUrl: db.url})
      return {store, close: async () => {
        await store.close()
        await db.drop()
        rmSync(dir, {recursive: true, force: true})
      }}
    },
  })
}
