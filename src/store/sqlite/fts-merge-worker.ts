/**
 * Worker thread of a db's purge on SQLite (src/store/sqlite/fts-merge.ts): its own connection to the
 * data file (thread-connection.ts), running the purge's slices and then the trigram index's merge
 * steps it is sent, one transaction each. Here they hold this thread and the file's write lock, not
 * the server's thread.
 */
import {mergeStep} from './fts-merge-step.js'
import {openWriterConnection, serveWrites} from './thread-connection.js'

/**
 * A merge step (`deleteMerge`: FTS5's 'deletemerge' during the step, back to 0 at its end: see
 * fts-merge-step.ts), or one write statement (a purge's slice) in a transaction of its own. The
 * answer (threads.ts WriterReply `changes`): of a merge, rows FTS5 changed in its tables (fewer
 * than 2: it found nothing to merge); of a run, rows the statement changed.
 */
export type MergeRequest = {op: 'merge'; pages: number; deleteMerge: number} | {op: 'run'; sql: string; params: unknown[]}

const db = openWriterConnection()
serveWrites<MergeRequest>(db, (m) => m.op === 'merge' ? mergeStep(db, m.pages, m.deleteMerge) : db.prepare(m.sql).run(...m.params).changes)
