// `svc history`, `svc history show --diff`, `svc restore BOOKMARK` on a data dir (embedded backend:
// door cli), with their exit codes and --json; a restore asks first and refuses without a terminal.
import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

describe('svc history and svc restore', () => {
  const data = tempDir()
  afterAll(() => rmSync(data, {recursive: true, force: true}))

  it('lists a prompt\'s changes (door cli), shows one with its diff, restores a version, and the trash', async () => {
    expect((await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data])).code).toBe(0)
    expect((await svc(['prompt', 'create', '--name', 'Hi', '--code', 'hi', '--content', 'Hello\nworld', '--data', data])).code).toBe(0)
    expect((await svc(['prompt', 'update', 'hi', '--content', 'Hello\nthere', '--data', data])).code).toBe(0)

    const listed = await svc(['history', 'prompt', 'hi', '--json', '--data', data])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json.map((e: {op: string; door: string}) => `${e.op} ${e.door}`)).toEqual(['update cli', 'create cli'])
    const [update, create] = listed.json
    const text = await svc(['history', 'prompt', 'hi', '--data', data])
    expect(text.stdout).toContain(`${update.bookmark}`)
    expect(text.stdout).toMatch(/update\s+cli\s+admin\s+prompt Hi \(hi\) updated/)

    const shown = await svc(['history', 'show', update.bookmark, '--diff', '--data', data])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain('-world')
    expect(shown.stdout).toContain('+there')

    const refused = await svc(['restore', create.bookmark, '--data', data])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--yes')
    const restored = await svc(['restore', create.bookmark, '--yes', '--json', '--data', data])
    expect(restored.code, restored.stderr).toBe(0)
    expect(restored.json.version.content).toBe('Hello\nworld')
    expect((await svc(['prompt', 'get', 'hi', '--json', '--data', data])).json.content).toBe('Hello\nworld')

    expect((await svc(['prompt', 'delete', 'hi', '--yes', '--data', data])).code).toBe(0)
    const trash = await svc(['history', '--op', 'delete', '--json', '--data', data])
    expect(trash.json).toEqual([expect.objectContaining({kind: 'prompt', op: 'delete', id: update.id})])
    expect((await svc(['restore', trash.json[0].bookmark, '--yes', '--data', data])).code).toBe(0)
    expect((await svc(['prompt', 'get', 'hi', '--json', '--data', data])).json.content).toBe('Hello\nworld')

    const bad = await svc(['history', '--since', 'yesterday-ish', '--data', data])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('not a time')
    expect((await svc(['history', 'show', '999999', '--data', data])).code).not.toBe(0)
  })
})
