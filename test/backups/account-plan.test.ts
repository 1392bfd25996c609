// The renumbering of an account import (src/core/backup/account-plan.ts), on rows the API cannot
// make: references to rows the export does not hold, a setting of a missing db, a {user_id} mixed
// into other text, a store table the plan does not know.
import {describe, expect, it} from 'vitest'
import {globalKeys, Renumbering, unplannedTables, userIdFields} from '../../src/core/backup/account-plan.js'

describe('account import renumbering', () => {
  it('maps every reference, and a reference to a row the export does not hold never lands on another row', () => {
    const r = new Renumbering(40)
    r.rewrite('accounts', ['id', 'name'], [[1, 'acme']], [40])
    r.rewrite('users', ['id', 'account_id', 'department_id'], [[5, 1, null], [9, 1, null]], [100, 101])
    expect(r.rewrite('dashboards', ['id', 'account_id', 'created_by_id'], [[3, 1, 9], [4, 1, 77]], [10, 11]))
      .toEqual([[10, 40, 101], [11, 40, 0]])
    expect(r.rewrite('prompts', ['id', 'account_id', 'scope', 'scope_id', 'created_by_id'],
      [['u1', 1, 'user', 5, 77], ['u2', 1, 'team', 3, null], ['u3', 1, 'account', null, 5]]))
      .toEqual([['u1', 40, 'user', 100, null], ['u2', 40, 'team', null, null], ['u3', 40, 'account', null, 100]])
  })

  it('renumbers grid settings and {user_id} record fields, drops settings of dbs not exported, notes mixed templates', () => {
    const r = new Renumbering(2)
    r.rewrite('accounts', ['id'], [[1]], [2])
    r.rewrite('users', ['id', 'account_id'], [[5, 1]], [50])
    const methods = JSON.stringify({create: {auto_fields: {owner: '{user_id}', tag: 'u-{user_id}'}}})
    r.rewrite('dbs', ['id', 'account_id', 'name', 'schema', 'public_methods'],
      [[7, 1, 'Notes', JSON.stringify({fields: {owner: 'string'}, indexed_fields: ['owner']}), methods]], [70])
    expect(r.notes.join()).toContain('tag')
    const [record] = r.rewrite('db_records', ['id', 'account_id', 'db_id', 'table_name', 'data', 'idx_str_1'],
      [[1, 1, 7, null, JSON.stringify({owner: '5', tag: 'u-5'}), '5']], [900])
    expect(record).toEqual([900, 2, 70, null, JSON.stringify({owner: '50', tag: 'u-5'}), '50'])
    const [gone] = r.rewrite('db_records', ['id', 'account_id', 'db_id', 'table_name', 'data', 'idx_str_1'],
      [[2, 1, 7, null, JSON.stringify({owner: '6'}), '6']], [901])
    expect(gone![4]).toBe(JSON.stringify({owner: ''}))
    expect(r.rewrite('user_settings', ['user_id', 'account_id', 'key', 'value'],
      [[5, 1, 'grid:7:', '{}'], [5, 1, 'grid:8:books', '{}'], [5, 1, 'theme', '"dark"']]))
      .toEqual([[50, 2, 'grid:70:', '{}'], [50, 2, 'theme', '"dark"']])
    expect(userIdFields('not json')).toEqual({exact: [], mixed: []})
    expect(r.rewrite('db_reindexes', ['db_id', 'table_key', 'after_id'], [[7, '', 1234]])).toEqual([[70, '', 0]])
  })

  it('names server-wide values, and refuses to export a table it has no plan for', () => {
    const keys = globalKeys('dbs', ['id', 'name', 'code', 'public_methods', 'deleted_at'],
      [[1, 'Books', 'books', '{"list":true}', null], [2, 'Private', 'private', '{}', null]])
    expect(keys).toEqual([{kind: 'public_db_code', value: 'books', label: 'public db "Books"'}])
    expect(unplannedTables(['accounts', 'server_secrets', 'journal', 'shiny_new'])).toEqual(['shiny_new'])
  })
})
