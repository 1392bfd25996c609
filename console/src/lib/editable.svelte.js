// @ts-check
// One editable resource of an editor (app, prompt, record, dashboard, db): loaded with its ETag,
// written with If-Match, and when someone else saved a newer version meanwhile (412) nothing is
// written and their version is kept beside the form (`stale`, shown by StaleView): "use theirs"
// reloads the form with it, "keep mine" keeps my edits over it (a field I did not touch takes
// their value) and, for the editors that say so, saves again with the tag just seen. Ctrl/Cmd+S
// saves. Every editor of the console uses this module (docs/console.md "Someone else changed it").
import {tagged} from './client.js'

/** @typedef {import('../../../src/sdk.ts').OperationId} OperationId */

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
 */

/** @template V */
export class Editable {
  /** @type {V | null} the version the form was loaded from (or last saved) */
  value = $state(null)
  /** @type {string | null} its ETag, sent as If-Match */
  etag = $state(null)
  /** @type {{current: V, etag: string} | null} the 412's version: someone else's, newer than `value` */
  stale = $state(null)
  busy = $state(false)

  /** @param {EditableOptions<V>} options */
  constructor(options) {
    this.options = options
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
    this.take(/** @type {V} */ (/** @type {unknown} */ (body)), headers.get('etag'))
    return /** @type {V} */ (/** @type {unknown} */ (body))
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
    if (resave) save?.()
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
