import {resolve} from 'node:path'
import {sqlRepos} from '../sql/repos.js'
import type {Store} from '../types.js'
import {startCheckpointer} from './checkpointer.js'
import {sqliteCluster} from './cluster.js'
import {openSqlite} from './connection.js'
import {SqlDbsRepo} from '../dbs/repo.js'
import {sqliteDbsSearch} from './dbs-search.js'
import {SqlitePort} from './port.js'
import {readerPool} from './reader-pool.js'
import {JournalContext} from '../journal/writer.js'
import {JournalSignal} from '../journal/signal.js'

/** Opens the SQLite store of a data dir (`DIR/svc.sqlite`), running pending migrations. */
export function openSqliteStore(dataDir: string): Store {
  const db = openSqlite(dataDir)
  const signal = new JournalSignal()
  const sql = new SqlitePort(db, signal)
  const readers = readerPool(dataDir)
  let closed = false
  const context = new JournalContext()
  const search = sqliteDbsSearch(sql, db, readers)
  return {
    driver: 'sqlite',
    ...sqlRepos(sql, context, search.upkeep, signal, (select, params, lane) => readers.running ? readers.all(select, params, lane) : sql.all(select, params)),
    dbs: new SqlDbsRepo(sql, search, context),
    cluster: sqliteCluster(),
    dataDir: resolve(dataDir),
    maintenance: (options = {}) => startCheckpointer(dataDir, options),
    readers: () => readers,
    async close() {
      if (closed) return
      closed = true
      await readers.stop() // a server stops it first; this is the backstop
      db.close()
    },
  }
}
