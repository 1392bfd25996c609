// @ts-check
// The Server-Sent Events wire format, read as the HTML standard's EventSource reads it
// ("event stream interpretation"): lines end in CRLF, LF or CR; `:` starts a comment; `event`,
// `data` (lines joined with \n), `id` (ignored if it holds NUL) and `retry` (digits only); a blank
// line dispatches, and sets the last event id even when it carries no data — as the feeds'
// heartbeats (`id: <bookmark>` and a comment) do, so a resume starts from the newest place known.
// Written here rather than taken from a library: eventsource-parser drops an id without data.

/**
 * @typedef {object} SseCallbacks
 * @property {(event: {type: string, data: string, id: string}) => void} onEvent an event with data (`type` defaults to `message`)
 * @property {(id: string) => void} [onId] the last event id after each blank line (with or without data)
 * @property {(ms: number) => void} [onRetry] a `retry:` field
 * @property {() => void} [onComment] a comment line (a heartbeat)
 */

/** @param {SseCallbacks} callbacks */
export function sseParser({onEvent, onId, onRetry, onComment}) {
  let buffer = ''
  let first = true
  let data = ''
  let type = ''
  let lastId = ''
  let sawId = false
  let pendingCR = false

  /** @param {string} line */
  function line(line) {
    if (line === '') {
      if (sawId) onId?.(lastId)
      sawId = false
      if (data !== '') onEvent({type: type || 'message', data: data.endsWith('\n') ? data.slice(0, -1) : data, id: lastId})
      data = ''
      type = ''
      return
    }
    if (line.startsWith(':')) {
      onComment?.()
      return
    }
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') type = value
    else if (field === 'data') data += `${value}\n`
    else if (field === 'id') {
      if (!value.includes('\0')) {
        lastId = value
        sawId = true
      }
    } else if (field === 'retry') {
      if (/^\d+$/.test(value)) onRetry?.(Number(value))
    }
  }

  return {
    /** Reads the next piece of the stream (text, any cut). @param {string} chunk */
    feed(chunk) {
      if (first && chunk.length) {
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
        first = false
      }
      if (pendingCR && chunk.startsWith('\n')) chunk = chunk.slice(1)
      pendingCR = false
      buffer += chunk
      let start = 0
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i)
        if (c !== 10 && c !== 13) continue
        line(buffer.slice(start, i))
        if (c === 13) {
          if (i + 1 === buffer.length) pendingCR = true
          else if (buffer.charCodeAt(i + 1) === 10) i++
        }
        start = i + 1
      }
      buffer = buffer.slice(start)
    },
    /** A new connection: a half-read event of the old one is dropped (the last event id stays). */
    reset() {
      buffer = ''
      data = ''
      type = ''
      sawId = false
      pendingCR = false
      first = true
    },
  }
}
