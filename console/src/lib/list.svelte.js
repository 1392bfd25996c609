// @ts-check
// One list of a screen: the call, its error, and whether it has answered yet ("Loading…" until
// then). `reload()` calls again (after a write, or on each tick of a poll).

/** @template T */
export class Listed {
  /** @type {T[] | null} null until the first answer */
  items = $state(null)
  error = $state('')

  /** @param {() => Promise<T[]>} load */
  constructor(load) {
    this.load = load
  }

  /** Calls the API again; answers the list (or null when it failed: `error` says why). */
  reload = async () => {
    try {
      this.items = await this.load()
      this.error = ''
    } catch (e) {
      this.error = e?.message ?? String(e)
    }
    return this.items
  }
}

/**
 * A list read now.
 * @template T
 * @param {() => Promise<T[]>} load
 */
export function listed(load) {
  const list = new Listed(load)
  list.reload()
  return list
}
