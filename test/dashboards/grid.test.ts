import {describe, expect, it} from 'vitest'
import {configLines, renderGrid, wrap} from '../../src/core/dashboards/grid.js'
import {layoutFromJson, selectTarget} from '../../src/core/dashboards/format.js'

describe('renderGrid', () => {
  const tile = (name: string, size: string, lines: string[] = []) => ({name, size, lines})

  it('draws each size as its share of the width and packs rows of four quarters', () => {
    const out = renderGrid([
      tile('Counters', 'full'), tile('TODO', 'quarter'), tile('Activity', 'quarter'), tile('Tasks', 'half'),
      tile('Deals', 'three_quarters', ['limit: 20']), tile('Mail', 'half'), tile('Chats', 'bogus'),
    ], 80).split('\n')
    for (const line of out) expect([...line].length).toBeLessThanOrEqual(80)
    // Row 1: one full box of 80 columns.
    expect(out[0]).toBe(`┌${'─'.repeat(78)}┐`)
    expect(out[1]).toBe(`│ Counters${' '.repeat(69)}│`)
    // Row 2: quarter + quarter + half on one line.
    expect(out[3]).toBe(`┌${'─'.repeat(18)}┐┌${'─'.repeat(18)}┐┌${'─'.repeat(38)}┐`)
    expect(out[4]).toContain('│ TODO')
    expect(out[4]).toContain('│ Activity')
    expect(out[4]).toContain('│ Tasks')
    // Row 3: three quarters alone (the half does not fit beside it), two lines high.
    expect(out[6]).toBe(`┌${'─'.repeat(58)}┐`)
    expect(out[8]).toBe(`│ limit: 20${' '.repeat(48)}│`)
    // Row 4: half + an unknown size drawn as half.
    expect(out[10]).toBe(`┌${'─'.repeat(38)}┐┌${'─'.repeat(38)}┐`)
    expect(out).toHaveLength(13)
  })

  it('wraps long lines inside their box and pads shorter boxes of the row', () => {
    const out = renderGrid([tile('Quick actions', 'quarter', ['hidden_actions: new_task, new_deal, new_note']), tile('AI', 'quarter')], 80).split('\n')
    expect(out.length).toBeGreaterThan(4)
    for (const line of out) expect([...line].length).toBe(40)
    expect(out.slice(1, -1).join('\n')).toContain('new_note')
  })

  it('wrap breaks at spaces, else hard, and never loops', () => {
    expect(wrap('abc def ghi', 7)).toEqual(['abc def', '  ghi'])
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', '  ef', '  gh', '  ij'])
    expect(wrap('x', 1)).toEqual(['x'])
    expect(wrap('xyz', 1)).toEqual(['x', '  y', '  z'])
  })

  it('configLines', () => {
    expect(configLines({scope: 'mine', hidden_counters: ['a', 'b']})).toEqual(['scope: mine', 'hidden_counters: a, b'])
    expect(configLines(undefined)).toEqual([])
  })
})

describe('CLI input helpers', () => {
  it('layoutFromJson takes an array, {layout} or {dashboard: {layout}}', () => {
    expect(layoutFromJson([{key: 'kpi'}], 'f')).toEqual([{key: 'kpi'}])
    expect(layoutFromJson({layout: [{key: 'kpi'}], id: 3}, 'f')).toEqual([{key: 'kpi'}])
    expect(layoutFromJson({dashboard: {layout: []}}, 'f')).toEqual([])
    expect(() => layoutFromJson({key: 'kpi'}, 'f')).toThrow(/JSON array/)
  })
  it('selectTarget', () => {
    expect(selectTarget('12')).toBe(12)
    expect(selectTarget('builtin')).toBe('builtin')
    expect(selectTarget('default')).toBe('')
    expect(selectTarget('')).toBe('')
    expect(() => selectTarget('latest')).toThrow(/TARGET/)
  })
})
