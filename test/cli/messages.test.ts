// Issue 19 item 12 (and 4): messages a person can act on, printed once; colour only on a
// terminal and never with NO_COLOR; a closed pipe is a clean exit; logout takes the name.
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {BIN, svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {plain, svcTty} from './tty.js'

describe('CLI messages and conventions', {timeout: 120_000}, () => {
  const data = tempDir()
  const work = tempDir()
  const local = (args: string[], input?: string) => svc([...args, '--data', data], {input, cwd: work})

  beforeAll(async () => {
    expect((await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])).code).toBe(0)
    expect((await local(['db', 'create', 'Books', '--code', 'books', '--schema', '{"fields":{"title":"string","n":"integer"}}'])).code).toBe(0)
    const lines = Array.from({length: 1500}, (_, i) => JSON.stringify({title: `Book number ${i} with a longer title to fill the pipe`, n: i})).join('\n')
    const imported = await local(['db', 'import', 'books', '-', '--json'], lines)
    expect(imported.json, imported.stderr).toMatchObject({imported: 1500})
  }, 300_000)
  it('a missing argument is named', async () => {
    const r = await svc(['admin', 'user', 'add', '--data', data])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('missing required argument LOGIN')
    const two = await svc(['db', 'records', 'delete', '--data', data])
    expect(two.stderr).toMatch(/missing required arguments DB, ID/)
  })

  it('a flag value of the wrong type says what was expected', async () => {
    const r = await local(['db', 'records', 'list', 'books', '--limit', 'many'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--limit.*many/)
  })

  it('a validation error is printed once', async () => {
    const r = await local(['prompt', 'create', '--name', 'X', '--code', 'x', '--content', '{{'])
    expect(r.code).toBe(5)
    expect(r.stderr.match(/not a valid Liquid template/g)).toHaveLength(1)
  })

  it('"send replace_all" is said with the CLI flag', async () => {
    writeFileSync(join(work, 'a.js'), 'document.body.textContent = "x" + "x"')
    expect((await local(['app', 'create', '--name', 'A', '--file', 'a.js', '--url-code', 'repl'])).code).toBe(0)
    const r = await local(['app', 'replace', 'repl', '--old', '"x"', '--new', '"y"'])
    expect(r.code).toBe(5)
    expect(r.stderr).toContain('pass --all')
    expect(r.stderr).not.toContain('replace_all')
  })

  it('searches and lists that find nothing say so (on stderr, stdout stays data)', async () => {
    const r = await local(['db', 'search', 'books', '--q', 'zzzz-nothing'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('No records match.')
    const apps = await local(['app', 'list', '--q', 'zzzz'])
    expect(apps.stdout).toContain('No apps match.')
    const json = await local(['db', 'search', 'books', '--q', 'zzzz-nothing', '--json'])
    expect(json.json).toEqual([])
    expect(json.stderr).toBe('')
  })

  // Issue 25 item 6.
  it('an empty --q search says which fields it looked in and how to look in others', async () => {
    const schema = '{"fields":{"title":"string","author":"string"},"indexed_fields":["author"]}'
    expect((await local(['db', 'create', 'Shelf', '--code', 'shelf', '--schema', schema])).code).toBe(0)
    expect((await local(['db', 'records', 'create', 'shelf', '{"title":"Dune","author":"Herbert"}'])).code).toBe(0)
    const r = await local(['db', 'search', 'shelf', '--q', 'Dune'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('No records match. --q looked only in the indexed fields: author.')
    expect(r.stderr).toContain('To look in others: --search-in author,title')
    const found = await local(['db', 'search', 'shelf', '--q', 'Dune', '--search-in', 'author,title', '--json'])
    expect(found.json).toMatchObject([{title: 'Dune'}])
    const declared = await local(['db', 'search', 'books', '--q', 'zzzz'])
    expect(declared.stderr).toContain('--q looked only in the fields of the schema: title, n.')
    const help = await svc(['db', 'search', '--help'])
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('Looks in the indexed fields (else the fields the schema declares, else the whole record); --search-in names others')
  })

  it('logout takes the profile name as an argument', async () => {
    const config = tempDir()
    const env = {SVC_CONFIG_DIR: config}
    expect((await svc(['login', '--data', data, '--name', 'tty'], {env})).code).toBe(0)
    const r = await svc(['logout', 'tty'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Removed profile "tty"')
    expect((await svc(['logout', 'tty'], {env})).code).toBe(4)
  })

  it('db export -o - into a pipe that closes early exits 0 without an EPIPE error', () => {
    const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" db export books -o - --data "${data}" | head -n 1`],
      {encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}})
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).data.title).toMatch(/^Book number/)
    expect(r.stderr).not.toContain('EPIPE')
  })

  it('colour on a terminal; none with NO_COLOR; none when not a terminal', async () => {
    const coloured = await svcTty(['db', 'get', 'nope', '--data', data], {cwd: work})
    expect(coloured.code).toBe(4)
    expect(coloured.output).toContain('\u001b[31mError:')
    const noColor = await svcTty(['db', 'get', 'nope', '--data', data], {cwd: work, env: {NO_COLOR: '1'}})
    expect(noColor.output).toContain('Error: no database "nope"')
    expect(noColor.output).not.toContain('\u001b[31m')
    const piped = await svc(['db', 'get', 'nope', '--data', data], {env: {NO_COLOR: undefined}})
    expect(piped.stderr).not.toContain('\u001b[')
    expect(plain(coloured.output)).toContain('Error: no database "nope"')
  })

  // Issue 25 item 10.
  it('missing required flags: one line per flag, saying what it is with an example, and the command\'s example', async () => {
    const r = await local(['db', 'replace', 'books'])
    expect(r.code).toBe(2)
    expect(r.stderr).not.toContain('The following errors occurred')
    const lines = r.stderr.split('\n')
    expect(lines[0]).toBe('Error: missing required flags:')
    expect(lines[1]).toMatch(/^ {2}--field +member to edit; one of schema, public_methods, fields; e\.g\. --field schema$/)
    expect(lines[2]).toMatch(/^ {2}--old +text to find; e\.g\. --old '"age": "integer"'$/)
    expect(lines[3]).toMatch(/^ {2}--new +replacement text; e\.g\. --new '"age": "number"'$/)
    expect(lines[4]).toContain('Try: svc db replace contacts --field schema')
    const one = await local(['cron', 'create', '--flow', 'x'])
    expect(one.stderr).toMatch(/^Error: missing required flag:\n {2}--schedule +cron expression.*e\.g\. --schedule "0 8 \* \* \*"\n/)
    const json = await local(['cron', 'create', '--json'])
    expect(json.code).toBe(2)
    expect(json.json.error).toMatchObject({code: 'usage', details: {missing_flags: ['flow', 'schedule']}})
  })
})
