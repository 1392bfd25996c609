// test/helpers/cli.ts runs most CLI scenarios inside the test process. These tests hold it to the
// real binary: the same stdout, stderr and exit code as a spawned `bin/run.js` for successes,
// usage errors, oclif's own errors, stdin, relative paths and env; and the test process's own
// state (env, cwd, exit code, stdout) is back as it was after each run.
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {svc, svcProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

describe('svc() in-process answers as the spawned binary does', {timeout: 120_000}, () => {
  const work = tempDir()
  const data = join(work, 'data')
  const files = tempDir()
  mkdirSync(data)

  it('prints, errs and exits byte for byte the same', async () => {
    const user = await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])
    expect(user.code, user.stderr).toBe(0)
    const cases: {args: string[]; cwd?: string; env?: Record<string, string>; input?: string}[] = [
      {args: ['--help']},
      {args: ['whoami', '--nope']},
      {args: ['nosuchcommand']},
      {args: ['prompt', 'create', '--data', files]},
      {args: ['prompt', 'get', '00000000-0000-7000-8000-000000000000', '--data', data, '--json']},
      // A relative data dir resolves against the cwd; stdin is the input given.
      {args: ['prompt', 'create', '--name', 'Piped', '--code', 'piped', '--content-file', '-', '--data', 'data', '--json'], cwd: work, input: 'from stdin\n'},
      {args: ['prompt', 'render', 'piped', '--data', data]},
      {args: ['prompt', 'render', 'piped'], env: {SVC_DATA: data, SVC_NO_FASTPATH: '1'}},
    ]
    for (const c of cases) {
      const options = {cwd: c.cwd, env: c.env, input: c.input}
      const inProcess = await svc(c.args, options)
      if (c.input) await svc(['prompt', 'delete', inProcess.json.id, '--data', data])
      const spawned = await svcProcess(c.args, options)
      const same = (r: typeof inProcess) => ({code: r.code, stdout: r.stdout.replace(/"(id|created_at|updated_at)": "[^"]+"/g, '"$1": …'), stderr: r.stderr})
      expect(same(inProcess), c.args.join(' ')).toEqual(same(spawned))
    }
  })

  it('leaves the test process as it found it', async () => {
    const before = {cwd: process.cwd(), env: {...process.env}, exitCode: process.exitCode, stdout: process.stdout, argv: process.argv}
    const r = await svc(['whoami', '--nope'], {cwd: files, env: {SVC_AS: 'nobody', EXTRA: '1'}})
    expect(r.code).toBe(2)
    expect({cwd: process.cwd(), env: {...process.env}, exitCode: process.exitCode, stdout: process.stdout, argv: process.argv}).toEqual(before)
    expect(process.env.EXTRA).toBeUndefined()
  })

  it('runs one command at a time: concurrent calls keep their own output', async () => {
    const runs = await Promise.all(['a', 'b', 'c'].map((login) => svc(['admin', 'user', 'add', login, '--data', data, '--json'])))
    expect(runs.map((r) => [r.code, r.json?.login])).toEqual([[0, 'a'], [0, 'b'], [0, 'c']])
  })
})
