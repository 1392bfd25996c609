/** One merge step of the trigram index (fts-merge.ts), shared by the server's connection and the merge thread's. */
import type Database from 'better-sqlite3'

const setting = (db: Database.Database, name: string, value: number) =>
  // A literal: FTS5 refuses a bound value here ('SQL logic error').
  db.exec(`INSERT INTO db_records_fts (db_records_fts, rank) VALUES ('${name}', ${Math.trunc(value)})`)

/**
 * Inside the caller's write transaction: one 'merge' of `pages` leaf pages with FTS5's delete-merges
 * at `deleteMerge` percent, then back to 0, all in the one commit. Between steps every other
 * connection sees 0, so a record write's automerge never picks the purged segments itself (a
 * segment with no live entry is read and dropped in one go: on the server's thread, that was the
 * pause this avoids). Returns the rows FTS5 changed: fewer than 2 is a step that found nothing to merge.
 */
export function mergeStep(db: Database.Database, pages: number, deleteMerge: number): number {
  const totalChanges = db.prepare('SELECT total_changes() AS n')
  setting(db, 'deletemerge', deleteMerge)
  const before = (totalChanges.get() as {n: number}).n
  setting(db, 'merge', pages)
  const changes = (totalChanges.get() as {n: number}).n - before
  setting(db, 'deletemerge', 0)
  return changes
}
