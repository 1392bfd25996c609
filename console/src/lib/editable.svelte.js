// @ts-check
// One editable resource of an editor (app, prompt, record, dashboard, db): loaded with its ETag,
// written with If-Match, and when someone else saved a newer version meanwhile (412) nothing is
// written and their version is kept beside the form (`stale`, shown by StaleView): "use theirs"
// reloads the form with it, "keep mine" keeps my edits over it (a field I did not touch takes
// their value) and, for the editors that say so, saves again with the tag just seen. Ctrl/Cmd+S
// saves. Every editor of the console uses this module (docs/console.md "Someone else changed it").
// While an editor is open, `follow()` watches the account's live journal feed for the resource:
// the moment someone else's write lands, `changed` holds who, through which door, and their version
// (StaleView shows "Changed by X through Y" with a way to compare and take it), before any save.
import {tagged} from './client.js'
import {Feed, feedOperation} from './live.svelte.js'

/** @typedef {import('../../../src/sdk.ts').OperationId} OperationId */
/** @typedef {import('./history.js').HistoryEntry} HistoryEntry */

/** The account's journal feed (decisions.md "Live feeds"), if this server has it. */
const JOURNAL_FEED = feedOperation('/svc/changes')

/**
 * @template V
 * @typedef {object} EditableOptions
 * @property {string} what What the resource is called in messages ("app", "prompt").
 * @property {(version: V) => Record<string, string>} [fields] A stored version's fields as shown (the stale view's rows).
 * @property {() => Record<string, string>} [yours] The form's fields, shown the same way.
 * @property {(version: V) => void} [fill] The form takes a version (loaded, saved, or theirs).
 * @property {(name: string, theirs: V) => void} [merge] A field I did not touch takes their value (keep mine).
 * @property {() => unknown} [save] The editor's save: Ctrl/Cmd+S, and "keep mine" when `resave`.
 * @property {boolean} [resave] "Keep mine" saves again at once (else on the next save).
 * @property {string} [conflict] The sentence shown while the stale view is open (a default names `what`).
 * @property {string} [kind] The journal's kind of the resource (`prompt`, `app`, `dashboard`, `record`; default `what`), for `follow()`.
 */

/** @template V */
export class Editable {
  /** @type {V | null} the version the form was loaded from (or last saved) */
  value = $state(null)
  /** @type {string | null} its ETag, sent as If-Match */
  etag = $state(null)
  /** @type {{current: V, etag: string, live?: boolean} | null} the 412's version: someone else's, newer than `value` (`live`: seen on the feed, before any save) */
  stale = $state(null)
  busy = $state(false)
  /**
   * Someone else's write seen on the live feed since the form was loaded (`follow()`): the journal
   * entry (who, through which door) and their version (null when they deleted it).
   * @type {{entry: HistoryEntry | null, current: V | null, etag: string | null} | null}
   */
  changed = $state(null)
  /** The id of the resource shown (what `follow()` watches). */
  #id = $derived(/** @type {any} */ (this.value)?.id)
  /** @type {{op: OperationId, input: any} | null} how the resource was read (read again when the feed tells of a write) */
  #source = null
  /** Settles when no write of ours is in flight (the feed's entry of our own save waits for its answer). */
  #writing = Promise.resolve()
  /** The feed's entries, handled one after the other. */
  #entries = Promise.resolve()
  #feed = new Feed((type, entry) => this.#queue(type, entry), (resumed) => {
    // Opened afresh: a write between the editor's read and now was not sent; read to be sure.
    if (!resumed) this.#queue('resync', null)
  })
  #queue(/** @type {string} */ type, /** @type {any} */ entry) {
    this.#entries = this.#entries.then(() => this.#noticed(type, entry)).catch(() => {})
  }

  /** @param {EditableOptions<V>} options */
  constructor(options) {
    this.options = options
  }

  /** The feed's state, for an editor that shows it. */
  get live() {
    return this.#feed.state
  }

  /** The sentence an editor shows while the stale view is open. */
  get conflict() {
    if (!this.stale) return ''
    return this.options.conflict ?? `Someone else changed this ${this.options.what} since you opened it. Nothing was saved: compare below.`
  }

  /**
   * Reads the resource and fills the form.
   * @template {OperationId} K
   * @param {K} op
   * @param {import('../../../src/sdk.ts').CallInput<K>} input
   */
  async load(op, input) {
    const {body, headers} = await tagged(op, input)
    this.#source = {op, input}
    this.take(/** @type {V} */ (/** @type {unknown} */ (body)), headers.get('etag'))
    return /** @type {V} */ (/** @type {unknown} */ (body))
  }

  /**
   * Watches the account's journal feed (GET /svc/changes, this kind and id) while the editor is
   * open: `$effect(() => resource.follow())` — the effect's cleanup closes the stream. Opens again
   * only when another resource is shown.
   * @returns {(() => void) | undefined}
   */
  follow() {
    const id = this.#id
    if (id === undefined || id === null || !this.#source) return
    const kind = this.options.kind ?? this.options.what
    return this.#feed.open(JOURNAL_FEED, /** @type {any} */ ({query: {kind, id: String(id)}}))
  }

  /**
   * An entry of the feed (or `resync`): reads the resource again once no write of ours is in
   * flight; a version other than the one shown is someone else's (our own save's entry finds the
   * version we already hold).
   * @param {string} type
   * @param {any} entry
   */
  async #noticed(type, entry) {
    if (type !== 'resync' && (!entry || typeof entry !== 'object' || String(entry.id) !== String(this.#id))) return
    await this.#writing
    const source = this.#source
    if (!source || this.value === null) return
    const shownId = this.#id
    let current = null
    let etag = null
    try {
      const answer = await tagged(source.op, source.input)
      current = /** @type {V} */ (/** @type {unknown} */ (answer.body))
      etag = answer.headers.get('etag')
    } catch (e) {
      if (e?.status !== 404 && e?.status !== 410) return
    }
    if (this.#id !== shownId) return
    if (current !== null && this.#same(current, etag)) return
    if (current === null && type !== 'resync' && entry.op !== 'delete') return
    this.changed = {entry: type === 'resync' ? null : entry, current, etag}
    if (this.stale && current !== null) this.stale = {...this.stale, current, etag: etag ?? this.stale.etag}
  }

  /** Whether `current` (tag `etag`) is the version shown. */
  #same(/** @type {V} */ current, /** @type {string | null} */ etag) {
    if (etag && this.etag) return etag === this.etag
    const stamp = (/** @type {any} */ v) => v?.updated_at ?? JSON.stringify(v)
    return stamp(current) === stamp(this.value)
  }

  /** Opens the comparison (StaleView) of the version seen on the feed with the form. */
  compare = () => {
    const changed = this.changed
    if (changed?.current) this.stale = {current: changed.current, etag: changed.etag ?? this.etag ?? '', live: true}
  }

  /** The form takes the version seen on the feed (my edits are dropped). */
  takeChanged = () => {
    const changed = this.changed
    if (changed?.current) this.take(changed.current, changed.etag)
  }

  /** Hides the notice of someone else's write (a save then meets the API's 412 as before). */
  dismiss = () => {
    this.changed = null
  }

  /**
   * The form shows `version`, of tag `etag`.
   * @param {V} version
   * @param {string | null} etag
   */
  take(version, etag) {
    this.value = version
    this.etag = etag
    this.stale = null
    this.changed = null
    this.options.fill?.(version)
  }

  /**
   * A write over the version shown (If-Match). Answers what the API answered (the saved version,
   * which the form takes), `true` for an empty answer, or null on a 412: then nothing was written
   * and `stale` holds their version. Any other error is thrown (the client's SvcError).
   * @template {OperationId} K
   * @param {K} op
   * @param {import('../../../src/sdk.ts').CallInput<K>} input
   */
  async write(op, input) {
    this.busy = true
    /** @type {() => void} */
    let written = () => {}
    this.#writing = new Promise((resolve) => (written = resolve))
    try {
      const ifMatch = this.etag ? {'if-match': this.etag} : {}
      const {body, headers} = await tagged(op, /** @type {any} */ ({...input, headers: {...input.headers, ...ifMatch}}))
      if (body && typeof body === 'object') this.take(/** @type {V} */ (/** @type {unknown} */ (body)), headers.get('etag'))
      else this.stale = null
      return body ?? true
    } catch (e) {
      if (e?.status === 412 && e.details?.current) {
        this.stale = {current: e.details.current, etag: e.details.etag}
        return null
      }
      throw e
    } finally {
      this.busy = false
      written()
    }
  }

  /** The stale view's rows: each field where theirs differs from what was loaded or typed. */
  get rows() {
    const {fields, yours} = this.options
    if (!this.stale || !fields) return []
    const was = this.value ? fields(this.value) : {}
    const theirs = fields(this.stale.current)
    const mine = yours?.() ?? was
    return Object.keys(theirs).map((name) => ({name, was: was[name] ?? '', theirs: theirs[name], yours: mine[name] ?? ''}))
      .filter((r) => r.theirs !== r.was || r.theirs !== r.yours)
  }

  /** Drops my edits: the form takes their version (and its tag). */
  takeTheirs = () => {
    if (this.stale) this.take(this.stale.current, this.stale.etag)
  }

  /** Keeps my edits over their version: what I did not touch takes their value; the next save carries their tag. */
  keepMine = () => {
    const stale = this.stale
    if (!stale) return
    const {fields, yours, merge, save, resave} = this.options
    if (fields && yours && merge && this.value) {
      const was = fields(this.value)
      const mine = yours()
      for (const name of Object.keys(was)) if (mine[name] === was[name]) merge(name, stale.current)
    }
    this.value = stale.current
    this.etag = stale.etag
    this.stale = null
    this.changed = null
    if (resave && !stale.live) save?.()
  }

  /** `<svelte:window onkeydown={resource.keydown}>`: Ctrl/Cmd+S saves. */
  keydown = (/** @type {KeyboardEvent} */ event) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
      event.preventDefault()
      this.options.save?.()
    }
  }
}

/** A value as the stale view shows it: yes/no for a flag, text otherwise. */
export const shown = (/** @type {unknown} */ v) => (typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v ?? ''))
