// The console's live updates, their pure part (console/src/db/live-rows.js, docs/console.md "Live
// updates"): where a change made elsewhere lands on the records grid's page, and which rows with
// unsaved edits changed underneath.
import {describe, expect, it} from 'vitest'
// @ts-expect-error plain JS module of the console
import {applyChange, changedUnderneath, newOnTop} from '../../console/src/db/live-rows.js'
// @ts-expect-error plain JS module of the console
import {sseParser} from '../../console/src/lib/sse.js'

const rec = (id: number, title: string, updated_at = '2026-11-27T10:00:00.000Z') => ({id, data: {title}, created_at: '2026-11-27T09:00:00.000Z', updated_at})
const none = new Set<number>()

describe('records grid live updates', () => {
  it('shows new records at the top only where a reload would put them: first page, newest first, no search', () => {
    expect(newOnTop({sort: '', searching: false, offset: 0})).toBe(true)
    expect(newOnTop({sort: '-id', searching: false, offset: 0})).toBe(true)
    expect(newOnTop({sort: '-created_at', searching: false, offset: 0})).toBe(true)
    expect(newOnTop({sort: '', searching: false, offset: 20})).toBe(false)
    expect(newOnTop({sort: 'title', searching: false, offset: 0})).toBe(false)
    expect(newOnTop({sort: '', searching: true, offset: 0})).toBe(false)
  })

  it('adds a create on top (counted), or counts it as not shown; a create already shown is not added twice', () => {
    const view = {rows: [rec(2, 'b'), rec(1, 'a')], count: 2, unseen: 0}
    const top = applyChange(view, 'create', rec(3, 'c'), {onTop: true, pinned: none})
    expect(top.rows.map((r: {id: number}) => r.id)).toEqual([3, 2, 1])
    expect(top).toMatchObject({count: 3, unseen: 0, touched: 3})
    const elsewhere = applyChange(view, 'create', rec(3, 'c'), {onTop: false, pinned: none})
    expect(elsewhere.rows).toBe(view.rows)
    expect(elsewhere).toMatchObject({count: 3, unseen: 1, touched: null})
    const again = applyChange(top, 'create', rec(3, 'c'), {onTop: true, pinned: none})
    expect(again.rows.map((r: {id: number}) => r.id)).toEqual([3, 2, 1])
    expect(again.count).toBe(3)
    // While counting (null), the count stays unknown.
    expect(applyChange({...view, count: null}, 'create', rec(3, 'c'), {onTop: true, pinned: none}).count).toBeNull()
  })

  it('keeps the page at its size (the last row leaves, unless it has unsaved edits); a create older than the page\'s newest row, come late, changes nothing', () => {
    const view = {rows: [rec(3, 'c'), rec(2, 'b'), rec(1, 'a')], count: 3, unseen: 0}
    const top = applyChange(view, 'create', rec(4, 'd'), {onTop: true, pinned: none, limit: 3})
    expect(top.rows.map((r: {id: number}) => r.id)).toEqual([4, 3, 2])
    expect(top.count).toBe(4)
    const kept = applyChange(view, 'create', rec(4, 'd'), {onTop: true, pinned: new Set([1]), limit: 3})
    expect(kept.rows.map((r: {id: number}) => r.id)).toEqual([4, 3, 1])
    // Read by the page's load already (an event that arrived after it): neither shown again nor counted twice.
    const late = {rows: [rec(30, 'x'), rec(29, 'y')], count: 30, unseen: 0}
    expect(applyChange(late, 'create', rec(12, 'z'), {onTop: true, pinned: none, limit: 2})).toMatchObject({rows: late.rows, count: 30, touched: null})
  })

  it('updates a row in place, never back to an older version; ignores rows not on the page', () => {
    const view = {rows: [rec(2, 'b', '2026-11-27T10:00:01.000Z'), rec(1, 'a')], count: 2, unseen: 0}
    const next = applyChange(view, 'update', rec(1, 'A', '2026-11-27T10:00:05.000Z'), {onTop: true, pinned: none})
    expect(next.rows.map((r: {data: {title: string}}) => r.data.title)).toEqual(['b', 'A'])
    expect(next.touched).toBe(1)
    expect(applyChange(view, 'update', rec(2, 'old', '2026-11-27T09:00:00.000Z'), {onTop: true, pinned: none}).rows).toBe(view.rows)
    expect(applyChange(view, 'update', rec(9, 'x'), {onTop: true, pinned: none}).rows).toBe(view.rows)
  })

  it('removes a deleted row, but keeps one with unsaved edits (marked gone); counts it either way', () => {
    const view = {rows: [rec(2, 'b'), rec(1, 'a')], count: 2, unseen: 0}
    const removed = applyChange(view, 'delete', {id: 2, table_name: null}, {onTop: true, pinned: none})
    expect(removed.rows.map((r: {id: number}) => r.id)).toEqual([1])
    expect(removed.count).toBe(1)
    const kept = applyChange(view, 'delete', {id: 2, table_name: null}, {onTop: true, pinned: new Set([2])})
    expect(kept.rows).toBe(view.rows)
    expect(kept).toMatchObject({gone: 2, count: 1})
    expect(applyChange(view, 'delete', {id: 7}, {onTop: true, pinned: none}).count).toBe(1)
    expect(applyChange(view, 'delete', null, {onTop: true, pinned: none}).rows).toBe(view.rows)
  })

  it('names the rows with unsaved edits whose record changed since (their value and the text typed)', () => {
    const etagOf = (r: {id: number; updated_at: string}) => `"r${r.id}-${r.updated_at}"`
    const rows = [rec(1, 'Dune III', '2026-11-27T10:00:05.000Z'), rec(2, 'b')]
    const queue = [
      {key: '1:title', id: 1, field: 'title', text: 'Dune II', etag: '"r1-2026-11-27T10:00:00.000Z"'},
      {key: '2:title', id: 2, field: 'title', text: 'B', etag: etagOf(rows[1])},
    ]
    expect(changedUnderneath(rows, queue, etagOf)).toEqual([{id: 1, fields: [{field: 'title', theirs: 'Dune III', yours: 'Dune II'}]}])
  })
})

describe('the console\'s Server-Sent Events reader', () => {
  const read = (chunks: string[]) => {
    const events: unknown[] = []
    const ids: string[] = []
    const retries: number[] = []
    const parser = sseParser({onEvent: (e: unknown) => events.push(e), onId: (id: string) => ids.push(id), onRetry: (ms: number) => retries.push(ms)})
    for (const c of chunks) parser.feed(c)
    return {events, ids, retries, parser}
  }

  it('reads events cut anywhere, with every line ending, multi-line data, comments and retry', () => {
    const text = '\uFEFFretry: 2000\n: connected\n\nevent: update\nid: 0001\ndata: {"id":1,\ndata: "x":2}\n\r\nevent:create\r\nid:0002\r\ndata:{}\r\rdata: plain\n\n'
    const whole = read([text])
    expect(whole.events).toEqual([
      {type: 'update', data: '{"id":1,\n"x":2}', id: '0001'},
      {type: 'create', data: '{}', id: '0002'},
      {type: 'message', data: 'plain', id: '0002'},
    ])
    expect(whole.retries).toEqual([2000])
    for (let cut = 1; cut < text.length; cut++) expect(read([text.slice(0, cut), text.slice(cut)]).events, `cut at ${cut}`).toEqual(whole.events)
    expect(read([...text]).events).toEqual(whole.events)
  })

  it('keeps the id of an event without data (a heartbeat), as EventSource does; ignores an id with NUL and a bad retry', () => {
    const {events, ids, retries} = read(['id: 0009\n: heartbeat\n\n', 'id: a\0b\nretry: 2s\ndata: x\n\n'])
    expect(ids).toEqual(['0009'])
    expect(events).toEqual([{type: 'message', data: 'x', id: '0009'}])
    expect(retries).toEqual([])
  })

  it('drops a half-read event when a new connection starts', () => {
    const {events, parser} = read(['event: update\ndata: {"half":'])
    parser.reset()
    parser.feed('event: create\ndata: 1\n\n')
    expect(events).toEqual([{type: 'create', data: '1', id: ''}])
  })
})
