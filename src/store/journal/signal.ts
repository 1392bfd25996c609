/**
 * "The journal may hold new entries": what a reader tailing the journal (the live feeds' hub,
 * src/services/feeds/) waits for instead of polling. One per store. SQLite emits it after every
 * transaction that appended an entry has committed (its port, in this process); PostgreSQL emits it
 * when a notification of `svc_journal` arrives (sent by the commit of any instance, carrying the
 * entry's bookmark only: migration 76) and when the listening connection is back after a loss (what
 * was committed meanwhile was never notified). A signal may be spurious (a rolled back transaction):
 * a reader reads the journal after its position and finds nothing.
 */
export type JournalWake = (pos?: number) => void

export class JournalSignal {
  private readonly listeners = new Set<JournalWake>()

  /** Calls `fn` on every signal; answers the function that stops it. */
  on(fn: JournalWake): () => void {
    this.listeners.add(fn)
    return () => void this.listeners.delete(fn)
  }

  emit(pos?: number): void {
    for (const fn of this.listeners) {
      try {
        fn(pos)
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}

/** The channel PostgreSQL notifies each committed journal entry's bookmark on. */
export const JOURNAL_CHANNEL = 'svc_journal'
